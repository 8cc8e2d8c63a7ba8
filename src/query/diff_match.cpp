// Diff's function identity across two profiles and the fold level they are compared at.
#include "query/diff_match.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

#include "util/pattern.h"
#include "util/strings.h"

namespace callprof {
namespace {

std::string_view module_base(const Profile& p, const Function& f) {
  return f.module < p.modules.size() ? base_name(p.modules[f.module].path) : std::string_view();
}

// What tells apart functions of one profile that share a full name: the source file, then
// also the module ("" for a name no other function of the profile has).
std::vector<std::string> qualifiers(const Profile& p) {
  auto name_of = [&](const Function& f) { return fmt::format("{}\x1f{}", char('0' + int(f.kind)), f.name); };
  std::unordered_map<std::string, uint32_t> by_name, by_file;
  for (const Function& f : p.functions) ++by_name[name_of(f)];
  std::vector<std::string> out(p.functions.size());
  for (size_t i = 0; i < p.functions.size(); ++i)
    if (by_name[name_of(p.functions[i])] > 1) out[i] = std::string(base_name(p.functions[i].file));
  for (size_t i = 0; i < p.functions.size(); ++i)
    if (by_name[name_of(p.functions[i])] > 1) ++by_file[name_of(p.functions[i]) + '\x1f' + out[i]];
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const Function& f = p.functions[i];
    if (by_name[name_of(f)] < 2 || by_file[name_of(f) + '\x1f' + out[i]] < 2) continue;
    const std::string_view module = module_base(p, f);
    out[i] = out[i].empty() ? std::string(module) : fmt::format("{}, {}", out[i], module);
  }
  return out;
}

}  // namespace

uint32_t FunctionKeys::intern(std::string identity, std::string_view full, std::string_view linkage,
                              std::string qualifier) {
  auto [it, added] = ids_.try_emplace(std::move(identity), uint32_t(full_.size()));
  if (added) {
    full_.emplace_back(full);
    linkage_.emplace_back(linkage);
    qualifier_.push_back(std::move(qualifier));
  }
  return it->second;
}

std::vector<uint32_t> FunctionKeys::add_side(const Analysis& a) {
  const Profile& p = a.profile();
  const std::vector<std::string> qualifier = qualifiers(p);
  std::vector<uint32_t> keys(p.functions.size());
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const Function& f = p.functions[i];
    keys[i] = intern(fmt::format("{}\x1f{}\x1f{}", char('0' + int(f.kind)), f.name, qualifier[i]), f.name,
                     f.linkage_name, qualifier[i]);
  }
  return keys;
}

uint32_t FunctionKeys::unknown(const Analysis& a, FunctionId f) {
  const std::string_view name = a.full_name(f);
  return intern(fmt::format("?\x1f{}", name), name, "", "");
}

std::vector<std::string> FunctionKeys::display_names(NameStyle style) const {
  std::vector<NameSource> sources;
  sources.reserve(full_.size());
  for (size_t k = 0; k < full_.size(); ++k) sources.push_back(NameSource{full_[k], linkage_[k]});
  std::vector<std::string> names = callprof::display_names(sources, style);
  for (size_t k = 0; k < names.size(); ++k)
    if (!qualifier_[k].empty()) names[k] += fmt::format(" [{}]", qualifier_[k]);
  return names;
}

namespace {

// A record filter as the runtime applied it (collect/runtime/function_plan.cpp): patterns
// on the demangled name and on the module path, include lists first.
struct RecordFilter {
  std::vector<Pattern> include, exclude, include_modules, exclude_modules;
  bool excludes(const Function& f, std::string_view module_path) const {
    auto any = [](const std::vector<Pattern>& list, std::string_view s) {
      for (const Pattern& p : list)
        if (p.search(s)) return true;
      return false;
    };
    if (!include_modules.empty() && !any(include_modules, module_path)) return true;
    if (any(exclude_modules, module_path)) return true;
    if (!include.empty() && !any(include, f.name)) return true;
    return any(exclude, f.name);
  }
};

std::string filter_text(const ExactFacts& x) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}", x.include, x.exclude, x.include_module, x.exclude_module);
}

// The profile keeps each option's patterns joined by spaces: a pattern that held a space
// cannot be told apart, and one that does not compile is left out with a warning.
std::vector<Pattern> split_patterns(const std::string& joined, std::string_view option,
                                    std::vector<std::string>& warnings) {
  std::vector<Pattern> out;
  std::istringstream in(joined);
  for (std::string word; in >> word;) {
    auto p = Pattern::compile(word, option);
    if (p)
      out.push_back(std::move(*p));
    else
      warnings.push_back(fmt::format("{} '{}' of one run could not be applied to the other", option, word));
  }
  return out;
}

RecordFilter record_filter(const ExactFacts& x, std::vector<std::string>& warnings) {
  return {split_patterns(x.include, "--include", warnings), split_patterns(x.exclude, "--exclude", warnings),
          split_patterns(x.include_module, "--include-module", warnings),
          split_patterns(x.exclude_module, "--exclude-module", warnings)};
}

using Leveled = std::map<uint32_t, LeveledFunction>;

void add_auto_folded(const Analysis& a, const std::vector<uint32_t>& keys, bool is_base, Leveled& out) {
  for (const FoldedFunction& f : a.folded()) {
    if (f.function >= keys.size()) continue;
    LeveledFunction& l = out[keys[f.function]];
    l.key = keys[f.function];
    (is_base ? l.in_base : l.in_new) = true;
  }
}

// Functions of `a` (in its tree) that `other`'s record filter kept out of its run.
void add_filtered(const Analysis& a, const std::vector<uint32_t>& keys, const RecordFilter& other, bool is_base,
                  Leveled& out) {
  const Profile& p = a.profile();
  for (const FunctionRow& r : a.functions()) {
    if (r.function >= p.functions.size()) continue;
    const Function& f = p.functions[r.function];
    if (f.kind != FunctionKind::Normal) continue;
    const std::string_view module = f.module < p.modules.size() ? std::string_view(p.modules[f.module].path) : "";
    if (!other.excludes(f, module)) continue;
    LeveledFunction& l = out[keys[r.function]];  // auto-folded somewhere too: no row either way
    l.key = keys[r.function];
    l.mode = FoldMode::Dropped;
    (is_base ? l.in_new : l.in_base) = true;  // the other run is where it was kept out
  }
}

std::vector<FoldMode> modes(const std::vector<uint32_t>& keys, const Leveled& leveled) {
  std::vector<FoldMode> out(keys.size(), FoldMode::Kept);
  for (size_t f = 0; f < keys.size(); ++f)
    if (auto it = leveled.find(keys[f]); it != leveled.end()) out[f] = it->second.mode;
  return out;
}

}  // namespace

FoldLevel fold_level(const Analysis& base, const std::vector<uint32_t>& base_keys, const Analysis& next,
                     const std::vector<uint32_t>& next_keys) {
  FoldLevel level;
  Leveled leveled;
  add_auto_folded(base, base_keys, true, leveled);
  add_auto_folded(next, next_keys, false, leveled);
  const auto& bx = base.profile().meta.exact;
  const auto& nx = next.profile().meta.exact;
  if (bx && nx && filter_text(*bx) != filter_text(*nx)) {
    add_filtered(base, base_keys, record_filter(*nx, level.warnings), true, leveled);
    add_filtered(next, next_keys, record_filter(*bx, level.warnings), false, leveled);
  }
  level.base = modes(base_keys, leveled);
  level.next = modes(next_keys, leveled);
  for (const auto& [key, l] : leveled) level.functions.push_back(l);
  // Those folded in one run only are the ones that would have shown a phantom change.
  std::stable_partition(level.functions.begin(), level.functions.end(),
                        [](const LeveledFunction& l) { return l.in_base != l.in_new; });
  return level;
}

}  // namespace callprof

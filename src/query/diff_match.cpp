// Diff's function identity across two profiles and the fold level they are compared at.
#include "query/diff_match.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "util/pattern.h"
#include "util/strings.h"

namespace callprof {
namespace {

std::string_view module_base(const Profile& p, const Function& f) {
  return f.module < p.modules.size() ? base_name(p.modules[f.module].path) : std::string_view();
}

std::string name_of(const Function& f) { return fmt::format("{}\x1f{}", char('0' + int(f.kind)), f.name); }

// What tells apart functions that share a full name within one run: the source file, then
// also the module ("" for a name that is one function in each run). Decided over both
// profiles, so that a name a second function takes in one run only is qualified alike in both
// (else one `helper` would be "gone" and two "new"); a function whose module was renamed
// between the runs (./fast, ./slow) is still one function.
class Qualifiers {
 public:
  void count(const Profile& p) {
    std::unordered_map<std::string, std::set<std::string>> places;   // name -> file and module pairs
    std::unordered_map<std::string, std::set<std::string>> modules;  // name and file -> modules
    for (const Function& f : p.functions) {
      const std::string name = name_of(f), file(base_name(f.file));
      places[name].insert(file + '\x1f' + std::string(module_base(p, f)));
      modules[name + '\x1f' + file].insert(std::string(module_base(p, f)));
    }
    for (const auto& [name, set] : places) places_[name] = std::max(places_[name], set.size());
    for (const auto& [key, set] : modules) modules_[key] = std::max(modules_[key], set.size());
  }
  std::vector<std::string> of(const Profile& p) const {
    std::vector<std::string> out(p.functions.size());
    for (size_t i = 0; i < p.functions.size(); ++i) {
      const Function& f = p.functions[i];
      const std::string name = name_of(f), file(base_name(f.file));
      if (places_.at(name) < 2) continue;
      out[i] = file;
      if (modules_.at(name + '\x1f' + file) > 1)
        out[i] = file.empty() ? std::string(module_base(p, f)) : fmt::format("{}, {}", file, module_base(p, f));
    }
    return out;
  }

 private:
  // The most of each that one run has.
  std::unordered_map<std::string, size_t> places_;   // name -> file and module pairs
  std::unordered_map<std::string, size_t> modules_;  // name and file -> modules
};

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

std::pair<std::vector<uint32_t>, std::vector<uint32_t>> FunctionKeys::add_sides(const Analysis& base,
                                                                                const Analysis& next) {
  Qualifiers qualifiers;
  qualifiers.count(base.profile());
  qualifiers.count(next.profile());
  const auto side = [&](const Profile& p) {
    const std::vector<std::string> qualifier = qualifiers.of(p);
    std::vector<uint32_t> keys(p.functions.size());
    for (size_t i = 0; i < p.functions.size(); ++i) {
      const Function& f = p.functions[i];
      keys[i] = intern(name_of(f) + '\x1f' + qualifier[i], f.name, f.linkage_name, qualifier[i]);
    }
    return keys;
  };
  std::vector<uint32_t> base_keys = side(base.profile());
  return {std::move(base_keys), side(next.profile())};
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

NameFilter record_filter(const ExactFacts& x, std::vector<std::string>& warnings) {
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
void add_filtered(const Analysis& a, const std::vector<uint32_t>& keys, const NameFilter& other, bool is_base,
                  Leveled& out) {
  const Profile& p = a.profile();
  for (const FunctionRow& r : a.functions()) {
    if (r.function >= p.functions.size()) continue;
    const Function& f = p.functions[r.function];
    if (f.kind != FunctionKind::Normal) continue;
    const std::string_view module = f.module < p.modules.size() ? std::string_view(p.modules[f.module].path) : "";
    if (!other.excludes(f.name, module)) continue;
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

// Display names: libiberty's demangler gives a function's name without parameters or return
// type; a single bracket-matching pass over the text (util/demangled_name.h) does the
// shortening (and stands in for the demangler when there is no mangled name). No recursion
// and no backtracking, so names of any length take linear time.
#include "query/names.h"

#include <libiberty/demangle.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <unordered_map>

#include "util/demangled_name.h"
#include "util/escape.h"

namespace callprof {
namespace {

constexpr size_t kNone = std::string_view::npos;
constexpr std::string_view kEllipsis = "\u2026";

std::optional<std::string> demangle_with(const std::string& mangled, int options) {
  const std::unique_ptr<char, decltype(&std::free)> out(cplus_demangle(mangled.c_str(), options), &std::free);
  if (!out) return std::nullopt;
  return std::string(out.get());
}

// The name without parameters or return type from the demangler, but only when `name` is
// exactly what the demangler makes of `linkage_name` (the profile demangled it with the same
// code), so that the two surely describe the same function.
std::optional<std::string> demangled_base(std::string_view name, std::string_view linkage_name) {
  if (!linkage_name.starts_with("_Z")) return std::nullopt;
  const std::string mangled(linkage_name);
  if (demangle_with(mangled, DMGL_GNU_V3 | DMGL_PARAMS | DMGL_ANSI) != name) return std::nullopt;
  std::optional<std::string> base = demangle_with(mangled, DMGL_GNU_V3 | DMGL_ANSI);
  if (base) base->resize(clone_suffix_begin(*base));
  return base;
}

// Replacement for a bracketed group in the short form; nullopt keeps the bracket and goes on
// inside it. `before` is the character before the group, `after` the text after it.
std::optional<std::string> short_group(std::string_view group, char before, std::string_view after) {
  switch (group.front()) {
    case '<':
      return "<" + std::string(kEllipsis) + ">";
    case '[':
      if (group.starts_with("[abi:")) return "";
      break;
    case '(':
      if (group == "(anonymous namespace)") return "(anon)";
      // The parameters of an enclosing function: "f(int)::Local::m" -> "f::Local::m".
      if (after.starts_with("::") && (is_ident(before) || before == '>')) return "";
      break;
    case '{': {
      // "{lambda(int, char)#2}" -> "{lambda#2}". Read from the end so that nested groups
      // are not searched over and over.
      if (!group.starts_with("{lambda")) break;
      const size_t end = group.size() - 1;
      size_t digits = end;
      while (digits > 0 && group[digits - 1] >= '0' && group[digits - 1] <= '9') --digits;
      if (digits == end || digits < 2 || group[digits - 1] != '#' || group[digits - 2] != ')') break;
      return "{lambda#" + std::string(group.substr(digits, end - digits)) + "}";
    }
  }
  return std::nullopt;
}

// Short form of a name or of a parameter list; unbalanced text is returned unchanged.
std::string shorten(std::string_view s) {
  const Brackets b = match_brackets(s);
  if (!b.balanced) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (const size_t len = operator_length(s, i)) {
      out.append(s.substr(i, len));
      i += len - 1;
      continue;
    }
    const size_t close = b.partner[i];
    std::optional<std::string> replacement;
    if (close != kNone)
      replacement = short_group(s.substr(i, close + 1 - i), i > 0 ? s[i - 1] : ' ', s.substr(close + 1));
    if (replacement) {
      out += *replacement;
      i = close;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Synthetic names ("[pruned]", "<spontaneous>", "[3 threads] worker") and C names
// ("memcpy@plt", "foo [clone .cold]") are shown as they are.
bool is_verbatim(std::string_view name) {
  return name.empty() || name.front() == '[' || name.front() == '<' || name.find_first_of("(<:") == kNone;
}

// A symbol's version ("memcpy@@GLIBC_2.14", "stat@GLIBC_2.2.5@plt") is noise below the
// full level, as perf shows it: the name without it, "@plt" kept.
std::string unversioned(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size();) {
    const size_t at = name.find('@', i);
    out += name.substr(i, at - i);
    if (at == kNone) break;
    const size_t v = at + 1 < name.size() && name[at + 1] == '@' ? at + 2 : at + 1;
    size_t end = v;
    while (end < name.size() && (is_ident(name[end]) || name[end] == '.')) ++end;
    const bool version = end > v && name[v] >= 'A' && name[v] <= 'Z';
    if (!version) out += name.substr(at, end - at);
    i = end;
  }
  return out;
}

// One name taken apart once; every level of detail is put together from the pieces.
struct NameParts {
  std::string_view full;
  bool verbatim = false;  // the same text at every level but the versions (unversioned)
  std::string unversioned;
  std::string base;  // "std::vector<int>::push_back"
  std::string short_base;
  std::string params;       // "(int) const"
  std::string_view suffix;  // " [clone .cold]"
};

NameParts take_apart(std::string_view name, std::string_view linkage_name) {
  NameParts p;
  p.full = name;
  const size_t core_end = clone_suffix_begin(name);
  std::optional<SignaturePieces> text;
  if (!is_verbatim(name)) text = parse_signature(name.substr(0, core_end));
  if (!text) {
    p.verbatim = true;
    if (name.find('@') != kNone) p.unversioned = unversioned(name);
    return p;
  }
  p.base = std::move(text->name);
  p.params = std::move(text->params);
  p.suffix = name.substr(core_end);
  // The demangler knows where the return type ends; the text pass only guesses.
  if (const std::optional<std::string> lib = demangled_base(name, linkage_name)) {
    std::optional<SignaturePieces> lib_pieces = parse_signature(*lib);
    if (lib_pieces && !lib_pieces->name.empty()) p.base = std::move(lib_pieces->name);
  }
  p.short_base = shorten(p.base);
  return p;
}

// Levels of detail, least first; display_names() raises colliding names through them.
enum Level { kShort, kShortParams, kTemplates, kTemplatesParams, kFull };

std::string level_name(const NameParts& p, int level) {
  if (level >= kFull || (p.verbatim && p.unversioned.empty())) return std::string(p.full);
  if (p.verbatim) return p.unversioned;
  std::string out;
  switch (level) {
    case kShort:
      out = p.short_base;
      break;
    case kShortParams:
      out = p.short_base + shorten(p.params);
      break;
    case kTemplates:
      out = p.base;
      break;
    default:
      out = p.base + p.params;
      break;
  }
  out += p.suffix;
  return out;
}

// Names for entries with distinct full names, raising every entry whose name is shared one
// level at a time until none is. A raised name can collide anew with one shown at a lower
// level, hence rounds; the bound only matters for contrived tables and keeps time linear.
std::vector<std::string> distinct_names(const std::vector<NameParts>& parts, int first_level) {
  constexpr int kMaxRounds = 16;
  std::vector<int> level(parts.size(), first_level);
  std::vector<std::string> shown;
  shown.reserve(parts.size());
  for (const NameParts& p : parts) shown.push_back(level_name(p, first_level));
  for (int round = 0; round < kMaxRounds; ++round) {
    std::unordered_map<std::string_view, size_t> users;
    for (const std::string& s : shown) ++users[s];
    std::vector<size_t> raise;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (level[i] < kFull && users[shown[i]] > 1) raise.push_back(i);
    }
    if (raise.empty()) break;
    users.clear();  // its keys view `shown`, which changes now
    for (size_t i : raise) shown[i] = level_name(parts[i], ++level[i]);
  }
  return shown;
}

}  // namespace

std::string styled_name(std::string_view name, std::string_view linkage_name, NameStyle style) {
  if (style == NameStyle::Full) return std::string(name);
  return level_name(take_apart(name, linkage_name), style == NameStyle::Short ? kShort : kTemplates);
}

std::vector<std::string> display_names(std::span<const NameSource> functions, NameStyle style) {
  std::vector<std::string> out;
  out.reserve(functions.size());
  if (style == NameStyle::Full) {
    for (const NameSource& f : functions) out.emplace_back(f.name);
    return out;
  }
  // One entry per distinct full name: equal names stay equal whatever their linkage names.
  std::unordered_map<std::string_view, size_t> entry_of_name;
  std::vector<size_t> entry(functions.size());
  std::vector<NameParts> parts;
  for (size_t i = 0; i < functions.size(); ++i) {
    const auto [it, added] = entry_of_name.try_emplace(functions[i].name, parts.size());
    if (added) parts.push_back(take_apart(functions[i].name, functions[i].linkage_name));
    entry[i] = it->second;
  }
  const std::vector<std::string> shown = distinct_names(parts, style == NameStyle::Short ? kShort : kTemplates);
  for (size_t e : entry) out.push_back(shown[e]);
  return out;
}

std::optional<NameStyle> parse_name_style(std::string_view text) {
  if (text == "short") return NameStyle::Short;
  if (text == "templates") return NameStyle::Templates;
  if (text == "full") return NameStyle::Full;
  return std::nullopt;
}

std::string fit_width(std::string_view text, size_t width) {
  if (width == 0 || display_width(text) <= width) return std::string(text);
  return std::string(text.substr(0, display_prefix(text, width - 1))).append(kEllipsis);
}

}  // namespace callprof

// Display names: libiberty's demangler gives a function's name without parameters or return
// type; a single bracket-matching pass over the text does the shortening (and stands in for
// the demangler when there is no mangled name). No recursion and no backtracking, so names of
// any length take linear time.
#include "query/names.h"

#include <libiberty/demangle.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <optional>
#include <unordered_map>

#include "util/escape.h"

namespace callprof {
namespace {

constexpr size_t kNone = std::string_view::npos;
constexpr std::string_view kEllipsis = "\u2026";

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

// Length of the operator name at s[i] ("operator<<" is 10), 0 when there is none there.
// Symbolic names are taken whole so that their <, >, ( and [ are not read as brackets.
size_t operator_length(std::string_view s, size_t i) {
  constexpr std::string_view kKeyword = "operator";
  if (s[i] != 'o' || s.substr(i, kKeyword.size()) != kKeyword || (i > 0 && is_ident(s[i - 1]))) return 0;
  const size_t j = i + kKeyword.size();
  if (j < s.size() && is_ident(s[j])) return 0;
  // Longest first where one is a prefix of another.
  static constexpr std::string_view kSymbols[] = {
      "<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "->", "()", "[]", "<", ">"};
  for (std::string_view symbol : kSymbols) {
    if (s.substr(j, symbol.size()) == symbol) return kKeyword.size() + symbol.size();
  }
  return kKeyword.size();  // word operators and conversions: "operator new", "operator bool"
}

// Bracket structure of a name: partner[i] is the index of the bracket closing the one opened
// at i, kNone elsewhere. The demangler prints expressions in template arguments with
// parenthesized operands, so '<' right after ')' is a less-than ("enable_if<(1)<(3), int>")
// and '>' directly inside parentheses is a greater-than ("B<((5)>(3))>").
struct Brackets {
  std::vector<size_t> partner;
  bool balanced = true;
};

size_t bracket_kind(char open) { return open == '(' ? 0 : open == '[' ? 1 : open == '{' ? 2 : 3; }

class BracketMatcher {
 public:
  explicit BracketMatcher(std::string_view s) : s_(s) { out_.partner.assign(s.size(), kNone); }

  Brackets run() {
    size_t after_operator = kNone;  // "operator()<int>": that '<' opens template arguments
    for (size_t i = 0; i < s_.size(); ++i) {
      const char c = s_[i];
      if (const size_t len = operator_length(s_, i)) {
        i += len - 1;
        after_operator = i + 1;
      } else if (c == '(' || c == '[' || c == '{') {
        push(i);
      } else if (c == '<' && (i == 0 || s_[i - 1] != ')' || i == after_operator)) {
        push(i);
      } else if (c == '>') {
        close_angle(i);
      } else if (c == ')' || c == ']' || c == '}') {
        close(i, c == ')' ? '(' : c == ']' ? '[' : '{');
      }
    }
    if (!open_.empty()) out_.balanced = false;
    return std::move(out_);
  }

 private:
  void push(size_t i) {
    open_.push_back(i);
    ++count_[bracket_kind(s_[i])];
  }
  size_t pop() {
    const size_t top = open_.back();
    open_.pop_back();
    --count_[bracket_kind(s_[top])];
    return top;
  }
  void close_angle(size_t i) {
    if (open_.empty())
      out_.balanced = false;
    else if (s_[open_.back()] == '<')
      out_.partner[pop()] = i;
    // else a greater-than inside parentheses or braces
  }
  // Openers left unclosed on the way are less-thans; anything else is a mismatch.
  void close(size_t i, char want) {
    if (count_[bracket_kind(want)] == 0) {
      out_.balanced = false;
      return;
    }
    for (;;) {
      const size_t top = pop();
      if (s_[top] == want) {
        out_.partner[top] = i;
        return;
      }
      if (s_[top] != '<') out_.balanced = false;
    }
  }

  std::string_view s_;
  Brackets out_;
  std::vector<size_t> open_;
  std::array<size_t, 4> count_{};
};

// Where the " [clone .cold]" suffixes GCC appends to a demangled name begin.
size_t clone_suffix_begin(std::string_view s) {
  size_t end = s.size();
  while (end > 0 && s[end - 1] == ']') {
    const size_t pos = s.rfind(" [clone ", end - 1);
    if (pos == kNone || s.find(']', pos) != end - 1) break;
    end = pos;
  }
  return end;
}

// Length of the demangler's special-name prefixes ("non-virtual thunk to D::f()"), which the
// return-type rule would otherwise take for a return type.
size_t special_prefix_length(std::string_view s) {
  static constexpr std::string_view kPrefixes[] = {"non-virtual thunk to ",
                                                   "virtual thunk to ",
                                                   "covariant return thunk to ",
                                                   "transaction clone for ",
                                                   "TLS init function for ",
                                                   "TLS wrapper function for ",
                                                   "guard variable for ",
                                                   "hidden alias for ",
                                                   "construction vtable for ",
                                                   "vtable for ",
                                                   "VTT for ",
                                                   "typeinfo name for ",
                                                   "typeinfo fn for ",
                                                   "typeinfo for "};
  size_t len = 0;
  for (bool found = true; found;) {
    found = false;
    for (std::string_view prefix : kPrefixes) {
      if (s.substr(len).starts_with(prefix)) {
        len += prefix.size();
        found = true;
      }
    }
  }
  return len;
}

// What follows a function's own parameter list: cv and ref qualifiers only.
bool only_qualifiers(std::string_view tail) {
  static constexpr std::string_view kWords[] = {"const", "volatile", "restrict",        "&",
                                                "&&",    "noexcept", "transaction_safe"};
  for (size_t i = 0; i < tail.size();) {
    if (tail[i] == ' ') {
      ++i;
      continue;
    }
    const size_t end = std::min(tail.find(' ', i), tail.size());
    const std::string_view word = tail.substr(i, end - i);
    if (std::find(std::begin(kWords), std::end(kWords), word) == std::end(kWords)) return false;
    i = end;
  }
  return true;
}

// The top level of s[lo, hi): its last '(' group, the group before that, and the last space,
// '*' or '&' before the last group (where a return type ends).
struct TopLevel {
  size_t group = kNone, group_end = kNone;  // [group, group_end) including the parentheses
  size_t previous_group = kNone, previous_group_end = kNone;
  size_t separator = kNone;
};

TopLevel scan_top_level(std::string_view s, const std::vector<size_t>& partner, size_t lo, size_t hi) {
  TopLevel t;
  size_t separator = kNone;
  bool in_operator = false;  // the spaces of "operator new" and "operator bool" are part of the name
  for (size_t i = lo; i < hi; ++i) {
    if (const size_t len = operator_length(s, i)) {
      in_operator = true;
      i += len - 1;
    } else if (partner[i] != kNone) {
      if (s[i] == '(') {
        t.previous_group = t.group;
        t.previous_group_end = t.group_end;
        t.group = i;
        t.group_end = partner[i] + 1;
        t.separator = separator;
        in_operator = false;
      }
      i = partner[i];
    } else if (!in_operator && (s[i] == ' ' || s[i] == '*' || s[i] == '&')) {
      separator = i;
    }
  }
  return t;
}

struct Signature {
  size_t name_begin, name_end, params_end;  // parameters (with qualifiers) are [name_end, params_end)
};

// Finds the qualified name and the parameter list in a balanced s[lo, hi); without a
// parameter list, all of it is the name.
Signature split_signature(std::string_view s, const std::vector<size_t>& partner, size_t lo, size_t hi) {
  for (;;) {
    const TopLevel t = scan_top_level(s, partner, lo, hi);
    if (t.group == kNone || !only_qualifiers(s.substr(t.group_end, hi - t.group_end))) return {lo, hi, hi};
    // "void (*f<int>(int))(double)": a function returning a function pointer is inside the group.
    if (t.previous_group != kNone && t.previous_group_end == t.group) {
      lo = t.previous_group + 1;
      hi = t.previous_group_end - 1;
      continue;
    }
    const size_t name_begin = t.separator == kNone ? lo : t.separator + 1;
    if (name_begin == t.group) return {lo, hi, hi};
    return {name_begin, t.group, hi};
  }
}

struct Pieces {
  std::string name;    // qualified name, template arguments kept
  std::string params;  // "(int) const", "" when not a function
};

std::optional<Pieces> parse_signature(std::string_view core) {
  const Brackets b = BracketMatcher(core).run();
  if (!b.balanced) return std::nullopt;
  const size_t prefix = special_prefix_length(core);
  const Signature sig = split_signature(core, b.partner, prefix, core.size());
  Pieces out;
  out.name = std::string(core.substr(0, prefix)).append(core.substr(sig.name_begin, sig.name_end - sig.name_begin));
  out.params = std::string(core.substr(sig.name_end, sig.params_end - sig.name_end));
  return out;
}

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
  const Brackets b = BracketMatcher(s).run();
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
  std::optional<Pieces> text;
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
    std::optional<Pieces> lib_pieces = parse_signature(*lib);
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

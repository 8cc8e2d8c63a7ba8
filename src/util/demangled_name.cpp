#include "util/demangled_name.h"

#include <algorithm>
#include <array>

namespace callprof {
namespace {

constexpr size_t kNone = std::string_view::npos;

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

}  // namespace

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

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

Brackets match_brackets(std::string_view s) { return BracketMatcher(s).run(); }

size_t clone_suffix_begin(std::string_view s) {
  size_t end = s.size();
  while (end > 0 && s[end - 1] == ']') {
    const size_t pos = s.rfind(" [clone ", end - 1);
    if (pos == kNone || s.find(']', pos) != end - 1) break;
    end = pos;
  }
  return end;
}

std::optional<SignaturePieces> parse_signature(std::string_view core) {
  const Brackets b = match_brackets(core);
  if (!b.balanced) return std::nullopt;
  const size_t prefix = special_prefix_length(core);
  const Signature sig = split_signature(core, b.partner, prefix, core.size());
  SignaturePieces out;
  out.name = std::string(core.substr(0, prefix)).append(core.substr(sig.name_begin, sig.name_end - sig.name_begin));
  out.params = std::string(core.substr(sig.name_end, sig.params_end - sig.name_end));
  return out;
}

}  // namespace callprof

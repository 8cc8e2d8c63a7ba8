// The structure of a demangled C++ name, read without the demangler: bracket matching that
// knows operator names and the demangler's expressions, the function's qualified name apart
// from its return type and parameters. One pass, no recursion and no backtracking: names of
// any length take linear time. Display names (query/names.h) and what a thread ran
// (collect/runtime/thread_callable.h) read names with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace callprof {

// A character of an identifier ('$' too: Clang's lambdas are "$_0").
bool is_ident(char c);

// Length of the operator name at s[i] ("operator<<" is 10), 0 when there is none there.
// Symbolic names are taken whole so that their <, >, ( and [ are not read as brackets.
size_t operator_length(std::string_view s, size_t i);

// Bracket structure of a name: partner[i] is the index of the bracket closing the one opened
// at i, std::string_view::npos elsewhere. The demangler prints expressions in template arguments with
// parenthesized operands, so '<' right after ')' is a less-than ("enable_if<(1)<(3), int>")
// and '>' directly inside parentheses is a greater-than ("B<((5)>(3))>").
struct Brackets {
  std::vector<size_t> partner;
  bool balanced = true;
};

Brackets match_brackets(std::string_view s);

// Where the " [clone .cold]" suffixes GCC appends to a demangled name begin.
size_t clone_suffix_begin(std::string_view s);

struct SignaturePieces {
  std::string name;    // qualified name, template arguments kept
  std::string params;  // "(int) const", "" when not a function
};

// A demangled name without " [clone ...]" suffixes split into its qualified name and its
// parameter list, the return type left out ("main::{lambda()#1}& std::get<0ul, ...>(...)"
// is "std::get<0ul, ...>"); nullopt when its brackets do not balance.
std::optional<SignaturePieces> parse_signature(std::string_view core);

}  // namespace callprof

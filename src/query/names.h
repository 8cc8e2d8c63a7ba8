// Display names for functions: demangled C++ names shortened to a chosen level of detail
// (short, with template arguments, full), kept unique across a function table.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace callprof {

// Short: "std::vector<…>::push_back", Templates: "std::vector<int, std::allocator<int> >::push_back",
// Full: the demangled name as stored, with parameters and return type.
enum class NameStyle { Short, Templates, Full };

// One function's display name. `name` is the demangled name as stored in the profile (a C
// name, a C++ name with parameters and return type, or a synthetic name such as "[pruned]"
// or "<spontaneous>"); `linkage_name` is its ELF symbol, "" when unknown. Synthetic names,
// C names and text that does not parse (unbalanced brackets) come back unchanged, but for
// a symbol version ("memcpy@@GLIBC_2.14" is "memcpy"; "@plt" stays), shown only in Full.
//  Templates: parameter lists and return types dropped, template arguments kept.
//  Short: also every template argument list collapsed to "<…>", lambdas shown as
//         "{lambda#1}", "(anonymous namespace)" as "(anon)", ABI tags dropped, and the
//         parameters of an enclosing function ("f(int)::Local::m") dropped.
// "[clone .cold]" suffixes are kept in every style.
std::string styled_name(std::string_view name, std::string_view linkage_name, NameStyle style);

struct NameSource {
  std::string_view name;
  std::string_view linkage_name;
};

// Display names for a function table (index = function id). Functions whose full names differ
// but whose styled names collide are shown in more detail, one step at a time until they
// differ: short -> short with (shortened) parameters "f(int)" -> templates -> templates with
// parameters -> full. Functions with identical full names always get identical display names.
std::vector<std::string> display_names(std::span<const NameSource> functions, NameStyle style);

// "short" | "templates" | "full"; nullopt for anything else.
std::optional<NameStyle> parse_name_style(std::string_view text);

// Already-escaped terminal text cut to at most `width` columns (one per code point), ending
// with "…" when cut; width 0 means no limit.
std::string fit_width(std::string_view text, size_t width);

}  // namespace callprof

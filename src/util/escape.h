// Escaping of untrusted text (names from a profile or a program) for the terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace callprof {

// Make untrusted text (function, thread and command names) safe for a terminal and a
// table: control characters become C escapes (\n, \t, \x1b ...), C1 controls and
// bidirectional overrides become \u escapes, invalid UTF-8 bytes become \xNN.
std::string escape_text(std::string_view s);

// Terminal columns taken by already-escaped text (one per code point).
size_t display_width(std::string_view s);

}  // namespace callprof

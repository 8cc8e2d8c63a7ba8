// Escaping of untrusted text (names from a profile or a program) for the terminal, raw or
// inside JSON.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace callprof {

// Make untrusted text (function, thread and command names) safe for a terminal and a
// table: control characters become C escapes (\n, \t, \x1b ...), C1 controls and
// bidirectional overrides become \u escapes, invalid UTF-8 bytes become \xNN.
std::string escape_text(std::string_view s);
// Is `s` its own escape_text()? Without building the copy.
bool is_escaped_text(std::string_view s);
// How many bytes at the start of `s` are printable ASCII (0x20-0x7E).
size_t printable_ascii_prefix(std::string_view s);

// Serialized JSON (valid UTF-8) made safe for a terminal: the code points that JSON allows
// raw inside strings but a terminal acts on or that reorder text (C1 controls, bidirectional
// controls, U+2028/U+2029) become \uXXXX escapes, so the document means the same to a
// parser. ASCII controls are already escaped by every JSON serializer.
std::string inert_json(std::string json_text);
// A JSON string literal for any text (names come from profiled binaries and can hold any
// bytes): invalid UTF-8 replaced by U+FFFD, never thrown, and made inert as above.
std::string json_string(std::string_view s);

// Terminal columns taken by already-escaped text (one per code point).
size_t display_width(std::string_view s);
// How many bytes of `s` fill its first `columns` columns (whole code points; all of `s`
// when it is narrower).
size_t display_prefix(std::string_view s, size_t columns);

}  // namespace callprof

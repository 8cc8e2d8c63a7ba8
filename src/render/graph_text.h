// Text for the call graph's DOT: untrusted names made inert and short, quoted DOT strings,
// and the units its labels use (the report's format_ns lives above render, in report).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace callprof {

// An untrusted name (function, command, regex) as readable, inert text: control characters
// and invalid UTF-8 become visible escapes (util/escape.h), characters XML forbids even
// escaped (U+FFFE, U+FFFF) become \uFFFE, and text longer than `max_chars` code points keeps
// its start and end around a "…".
std::string safe_text(std::string_view untrusted, size_t max_chars);

// Text for inside a double-quoted DOT string that Graphviz shows literally: '\' and '"'
// are backslash-escaped (so Graphviz's \N, \G, \n ... never apply) and '&', '<', '>' become
// entities (Graphviz decodes entities in labels, so they show as themselves, and the DOT
// text carries no markup). The caller joins lines with the DOT escape "\n".
std::string dot_escape(std::string_view text);

// Text for inside a Graphviz HTML-like label (<...>, the legend's table) or an SVG element
// or attribute (the flame graph): '&', '<', '>', '"' and '\'' become entities, so a name can
// neither close the label or attribute nor open an element; nothing else is special there
// (no backslash escapes), and Graphviz XML-escapes a label again in SVG.
std::string html_label_escape(std::string_view text);

// 3 significant digits and a unit: 950ns, 1.23µs, 12.3ms, 4.56s; 0 is "0".
std::string format_duration(uint64_t ns);
// 1234567 -> "1,234,567".
std::string format_count(uint64_t n);
// part / whole as "12.3%" (two decimals below 1 %, "<0.01%" above 0); "-" when whole is 0.
std::string format_share(uint64_t part, uint64_t whole);

}  // namespace callprof

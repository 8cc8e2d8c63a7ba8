// JSON text made safe to sit inside an HTML <script type="application/json"> element.
#pragma once

#include <string>
#include <string_view>

namespace callprof::html {

// The same JSON document with '<', '>' and '&' written as \u003c, \u003e, \u0026 and the
// line separators U+2028 / U+2029 as \u2028 / \u2029. Outside strings JSON has none of these
// characters, so the result is equivalent JSON (JSON.parse gives the same value), and no
// name can end the script element ("</script>"), open a comment ("<!--") or read as a
// character reference. Any other byte is copied unchanged.
std::string json_for_script(std::string_view json);

}  // namespace callprof::html

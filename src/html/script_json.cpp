// Escaping a JSON document for embedding in a script element (see script_json.h).
#include "html/script_json.h"

namespace callprof::html {
namespace {

// U+2028 and U+2029 in UTF-8: E2 80 A8 and E2 80 A9.
bool is_line_separator(std::string_view s, size_t i) {
  return i + 2 < s.size() && s[i + 1] == '\x80' && (s[i + 2] == '\xa8' || s[i + 2] == '\xa9');
}

}  // namespace

std::string json_for_script(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 64);
  size_t done = 0;  // json[0, done) is in out
  for (size_t i = json.find_first_of("<>&\xe2"); i != std::string_view::npos;
       i = json.find_first_of("<>&\xe2", i + 1)) {
    const char* escape = nullptr;
    switch (json[i]) {
      case '<':
        escape = "\\u003c";
        break;
      case '>':
        escape = "\\u003e";
        break;
      case '&':
        escape = "\\u0026";
        break;
      default:
        if (is_line_separator(json, i)) escape = json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
    }
    if (!escape) continue;
    out.append(json, done, i - done).append(escape);
    done = i + (json[i] == '\xe2' ? 3 : 1);
    i = done - 1;
  }
  out.append(json, done);
  return out;
}

}  // namespace callprof::html

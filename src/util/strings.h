// Small string helpers shared by the host libraries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace callprof {

// The file name part of a path ("/usr/lib/libc.so.6" -> "libc.so.6").
inline std::string_view base_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

inline std::string join(const std::vector<std::string>& parts, std::string_view separator = " ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

}  // namespace callprof

#include "collect/stacks/kernel_symbols.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace callprof::stacks {

KernelSymbols KernelSymbols::load(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str());
}

KernelSymbols KernelSymbols::parse(const std::string& text) {
  KernelSymbols k;
  // "ffffffff81000000 T _stext [module]": 120 000 lines, so no stream per line.
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const char* line = text.data() + at;
    char* rest = nullptr;
    uint64_t a = std::strtoull(line, &rest, 16);
    size_t type_at = size_t(rest - text.data()) + 1;
    if (a != 0 && type_at + 2 < end && text[type_at - 1] == ' ' && text[type_at + 1] == ' ' &&
        std::strchr("tTwW", text[type_at])) {
      size_t name_end = text.find_first_of(" \t", type_at + 2);
      if (name_end == std::string::npos || name_end > end) name_end = end;
      k.symbols_.emplace_back(a, text.substr(type_at + 2, name_end - type_at - 2));
    }
    at = end + 1;
  }
  std::sort(k.symbols_.begin(), k.symbols_.end());
  return k;
}

const std::string& KernelSymbols::name(uint64_t address) const {
  static const std::string unknown;
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const auto& s) { return a < s.first; });
  return it == symbols_.begin() ? unknown : std::prev(it)->second;
}

}  // namespace callprof::stacks

#include "collect/sampling/kernel_symbols.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace callprof::sampling {

KernelSymbols KernelSymbols::load(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str());
}

KernelSymbols KernelSymbols::parse(const std::string& text) {
  KernelSymbols k;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string address, type, name;
    if (!(fields >> address >> type >> name) || type.size() != 1) continue;
    if (type != "t" && type != "T" && type != "w" && type != "W") continue;
    uint64_t a = std::strtoull(address.c_str(), nullptr, 16);
    if (a != 0) k.symbols_.emplace_back(a, std::move(name));
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

}  // namespace callprof::sampling

// Kernel function names for the kernel part of sampled stacks, from /proc/kallsyms (root,
// or kptr_restrict 0, sees the addresses; otherwise they read as 0 and frames stay unnamed).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace callprof::stacks {

inline bool is_kernel_address(uint64_t a) { return a >= 0xffff800000000000ull; }

class KernelSymbols {
 public:
  static KernelSymbols load(const std::string& path = "/proc/kallsyms");
  // Parses kallsyms text (address, type, name [module]); text and weak function symbols.
  static KernelSymbols parse(const std::string& text);
  // The function containing `address`, or "" when unknown.
  const std::string& name(uint64_t address) const;
  bool empty() const { return symbols_.empty(); }

 private:
  std::vector<std::pair<uint64_t, std::string>> symbols_;  // by address
};

}  // namespace callprof::stacks

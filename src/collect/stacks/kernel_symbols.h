// Kernel function names for the kernel part of sampled stacks, from /proc/kallsyms (root,
// or kptr_restrict 0, sees the addresses; otherwise they read as 0 and frames stay unnamed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace callprof::stacks {

inline bool is_kernel_address(uint64_t a) { return a >= 0xffff800000000000ull; }

class KernelSymbols {
 public:
  // The kernel's function names, from callprof's cache (~/.cache/callprof) when `cache_key`
  // names an entry there, else from `path`, then kept under the key. /proc/kallsyms cost
  // 35-50 ms to read (the kernel writes its 5.4 MB) and 25 ms to parse (122,000 lines) at
  // every recording with kernel frames; none: read and parsed every time.
  static KernelSymbols load(const std::string& path = "/proc/kallsyms",
                            const std::optional<std::string>& cache_key = kallsyms_cache_key());
  // What the kallsyms this user sees depends on: the boot (the kernel's addresses move at
  // each), the loaded modules, the user and kptr_restrict; none when it cannot be told.
  // (With --no-symbol-cache there is no cache to look in: symbols/symbolizer.h.)
  static std::optional<std::string> kallsyms_cache_key();
  // Parses kallsyms text (address, type, name [module]); text and weak function symbols.
  static KernelSymbols parse(std::string_view text);
  // The function containing `address`, or "" when unknown.
  std::string_view name(uint64_t address) const;
  bool empty() const { return symbols_.empty(); }

 private:
  // The cache file's bytes (kernel_symbols_cache.proto), and back: none when they are not
  // a whole file of `key`.
  std::string encode(const std::string& key) const;
  static std::optional<KernelSymbols> decode(const std::string& bytes, const std::string& key);

  struct Symbol {
    uint64_t address;
    uint32_t name_at;  // in names_
    uint32_t name_bytes;
    bool operator<(const Symbol& o) const { return address < o.address; }
  };
  std::vector<Symbol> symbols_;  // by address
  std::string names_;
};

}  // namespace callprof::stacks

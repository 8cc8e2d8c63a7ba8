// GCC's cold parts (NAME.cold: a function's unlikely paths, its catch blocks, linked apart)
// of a process's modules, each with the function it belongs to, at process addresses: a
// frame in a cold part is its function's (symbols/elf_functions.h reads the pairs).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace callprof::inject {

class ColdParts {
 public:
  // The cold parts of the module file `file`, loaded `bias` from its ELF addresses.
  void add(const std::string& file, uint64_t bias);
  // The function whose cold part starts at `part`; 0: none.
  uint64_t owner_of(uint64_t part) const;

 private:
  std::vector<std::pair<uint64_t, uint64_t>> owners_;  // (part, function), ascending
};

}  // namespace callprof::inject

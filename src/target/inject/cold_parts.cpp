#include "target/inject/cold_parts.h"

#include <algorithm>

#include "symbols/elf_functions.h"

namespace callprof::inject {

void ColdParts::add(const std::string& file, uint64_t bias) {
  for (const auto& [part, owner] : cold_part_owners(file)) owners_.emplace_back(part + bias, owner + bias);
  std::sort(owners_.begin(), owners_.end());
}

uint64_t ColdParts::owner_of(uint64_t part) const {
  const auto at = std::lower_bound(owners_.begin(), owners_.end(), std::pair<uint64_t, uint64_t>{part, 0});
  return at != owners_.end() && at->first == part ? at->second : 0;
}

}  // namespace callprof::inject

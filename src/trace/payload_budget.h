// Memory bounded by the input (internal): before a payload is parsed, its elements are
// counted on the wire and what they would take in memory is estimated, so a small file
// that claims millions of threads, nodes or functions is refused before anything is
// allocated for them. The limits are documented in docs/format.md, "Limits".
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "util/result.h"

namespace callprof::trace {

// Element counts of a payload, read from its wire encoding without building messages.
struct PayloadCounts {
  uint64_t modules = 0, functions = 0, processes = 0, threads = 0, nodes = 0, metric_values = 0, syscalls = 0,
           small_items = 0;  // small_items: creator path entries, errnos, buckets, extra entries
  uint64_t estimated_bytes() const;
};

// Counts the elements, or fails when the bytes are not a well-formed message.
Result<PayloadCounts> count_payload(std::span<const uint8_t> payload);

// Memory a file of `file_bytes` may make the reader use: a base for small files plus a
// multiple of the file's size (honest profiles stay far below it: docs/format.md).
inline constexpr uint64_t kBaseMemoryBudget = 64ull << 20;
inline constexpr uint64_t kMemoryBudgetPerFileByte = 1024;
uint64_t memory_budget(uint64_t file_bytes);

// Counts the payload's elements and refuses it when they would need more memory than a
// file of `file_bytes` is allowed; the error names the counts and the limit.
Status check_payload_budget(std::span<const uint8_t> payload, uint64_t file_bytes);

}  // namespace callprof::trace

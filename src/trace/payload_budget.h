// Memory bounded by the input (internal): what reading a profile and showing it may cost is
// estimated from its header and then from its payload's wire encoding (elements counted,
// text measured as it will be escaped), before any message or model is built, and a file
// that would need more than its size allows is refused. docs/format.md, "Limits".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/result.h"

namespace callprof::trace {

// What a payload holds, read from its wire encoding without building messages. Text is
// every `bytes` field (and unknown length-delimited field), each byte that escaping widens
// (control bytes, non-ASCII, quotes, markup) counted as 6.
struct PayloadCounts {
  uint64_t payload_bytes = 0;
  uint64_t modules = 0, functions = 0, processes = 0, threads = 0, nodes = 0, metric_values = 0, syscalls = 0,
           timeline_events = 0, locations = 0, code_entries = 0;
  uint64_t small_items = 0;    // creator path entries, errnos, buckets, extra entries, unknown fields
  uint64_t function_text = 0;  // functions' names, linkage names and files: every output lists them
  uint64_t other_text = 0;     // metadata, module paths, commands, thread and system call names
  // From the paths, counted once the rest is within the limit: the functions some node
  // calls (each has rows in every output), their text, and both names of each distinct
  // caller-callee pair of a thread (the edge tables copy them: a long name called from
  // many places costs on each).
  uint64_t called_functions = 0, called_text = 0, edge_text = 0;
  uint64_t thread_function_rows = 0;  // per thread, the functions its tree calls
  uint64_t estimated_bytes() const;
};

// Counts the payload, or fails ("corrupted (...)") when the bytes are not a well-formed message.
Result<PayloadCounts> count_payload(std::span<const uint8_t> payload);

// The memory a file of `file_bytes` may make the reader use: CALLPROF_MEMORY_LIMIT when it
// is set, else a base for small files plus a multiple of the file's size (honest profiles
// need 20 to 200 bytes per byte of file: docs/format.md). Fails on a malformed variable.
inline constexpr uint64_t kBaseMemoryBudget = 64ull << 20;
inline constexpr uint64_t kMemoryBudgetPerFileByte = 512;
inline constexpr const char* kMemoryLimitVariable = "CALLPROF_MEMORY_LIMIT";
Result<uint64_t> memory_limit(uint64_t file_bytes);

// A size as a user writes it: bytes, or a number (decimals allowed) with K, M, G or T
// (binary multiples; "KiB", "MB" and the like read the same), from 1 byte to 2^60.
Result<uint64_t> parse_memory_size(std::string_view text);

// Refused from the header alone, before decompressing: a payload of `payload_bytes` needs at
// least twice that (the payload and the messages parsed from it).
Status check_header_budget(uint64_t payload_bytes, uint64_t file_bytes);

// Counts the payload and refuses it when reading and showing it would need more memory
// than the limit for a file of `file_bytes`; the one-line error names what costs most, the
// limit, and how to raise it. On success, the estimate.
Result<uint64_t> check_payload_budget(std::span<const uint8_t> payload, uint64_t file_bytes);

}  // namespace callprof::trace

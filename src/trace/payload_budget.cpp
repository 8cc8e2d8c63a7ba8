// Counting a payload's elements on the wire (protobuf's CodedInputStream, no messages
// built), and the memory estimate that bounds what a file may cost the reader.
#include "trace/payload_budget.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>

namespace callprof::trace {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// Rough in-memory sizes (protobuf message + model object + container overhead), in bytes.
constexpr uint64_t kModuleCost = 160, kFunctionCost = 320, kProcessCost = 256, kThreadCost = 1024, kNodeCost = 256,
                   kMetricValueCost = 16, kSyscallCost = 512, kSmallItemCost = 64;

// The fields holding repeated elements, by message (numbers from profile.proto).
enum Field : uint32_t {
  kProfileMetadata = 1,
  kProfileModules = 2,
  kProfileFunctions = 3,
  kProfileProcesses = 4,
  kProfileThreads = 5,
  kMetadataExtra = 8,
  kThreadCreatorPath = 5,
  kThreadTree = 11,
  kThreadSyscalls = 17,
  kTreeParent = 1,
  kTreeFunction = 2,
  kTreeMetrics = 3,
  kTreeInlined = 4,
  kColumnValues = 2,
  kSyscallErrnos = 8,
  kSyscallBuckets = 9,
  kSyscallCounts = 10,
};

Error malformed() { return make_error("corrupted (the payload is not a valid profile message)"); }

// Calls on_field(field, wire_type, in) for each field of the message that fills `in` up to
// its limit; on_field reads or skips the field's value and returns false on bad input.
template <typename OnField>
bool for_each_field(CodedInputStream& in, OnField on_field) {
  for (;;) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return in.BytesUntilLimit() == 0;  // else a malformed tag
    if (!on_field(WireFormatLite::GetTagFieldNumber(tag), WireFormatLite::GetTagWireType(tag), tag)) return false;
  }
}

// Runs `body` on the length-delimited value at the stream's position.
template <typename Body>
bool nested(CodedInputStream& in, Body body) {
  uint32_t length = 0;
  if (!in.ReadVarint32(&length) || int64_t(length) > in.BytesUntilLimit()) return false;  // a limit is always set
  const auto limit = in.PushLimit(int(length));
  const bool ok = body() && in.BytesUntilLimit() == 0;
  in.PopLimit(limit);
  return ok;
}

// Elements of a repeated scalar field: one if unpacked, the varints of the block if packed.
bool count_scalars(CodedInputStream& in, WireFormatLite::WireType type, uint32_t tag, uint64_t& count) {
  if (type != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
    ++count;
    return WireFormatLite::SkipField(&in, tag);
  }
  return nested(in, [&] {
    uint64_t v = 0;
    while (in.BytesUntilLimit() > 0)
      if (!in.ReadVarint64(&v))
        return false;
      else
        ++count;
    return true;
  });
}

bool is_message(WireFormatLite::WireType type) { return type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED; }

bool count_tree(CodedInputStream& in, PayloadCounts& c) {
  return nested(in, [&] {
    uint64_t parents = 0, functions = 0;
    const bool ok = for_each_field(in, [&](uint32_t field, WireFormatLite::WireType type, uint32_t tag) {
      if (field == kTreeParent) return count_scalars(in, type, tag, parents);
      if (field == kTreeFunction) return count_scalars(in, type, tag, functions);
      if (field == kTreeInlined) return count_scalars(in, type, tag, c.small_items);
      if (field == kTreeMetrics && is_message(type))
        return nested(in, [&] {
          return for_each_field(in, [&](uint32_t f, WireFormatLite::WireType t, uint32_t g) {
            return f == kColumnValues ? count_scalars(in, t, g, c.metric_values) : WireFormatLite::SkipField(&in, g);
          });
        });
      return WireFormatLite::SkipField(&in, tag);
    });
    c.nodes += std::max(parents, functions);
    return ok;
  });
}

bool count_syscall(CodedInputStream& in, PayloadCounts& c) {
  ++c.syscalls;
  return nested(in, [&] {
    return for_each_field(in, [&](uint32_t field, WireFormatLite::WireType type, uint32_t tag) {
      if (field == kSyscallErrnos) {
        ++c.small_items;
        return WireFormatLite::SkipField(&in, tag);
      }
      if (field == kSyscallBuckets || field == kSyscallCounts) return count_scalars(in, type, tag, c.small_items);
      return WireFormatLite::SkipField(&in, tag);
    });
  });
}

bool count_thread(CodedInputStream& in, PayloadCounts& c) {
  ++c.threads;
  return nested(in, [&] {
    return for_each_field(in, [&](uint32_t field, WireFormatLite::WireType type, uint32_t tag) {
      if (field == kThreadCreatorPath) return count_scalars(in, type, tag, c.small_items);
      if (field == kThreadTree && is_message(type)) return count_tree(in, c);
      if (field == kThreadSyscalls && is_message(type)) return count_syscall(in, c);
      return WireFormatLite::SkipField(&in, tag);
    });
  });
}

bool count_metadata(CodedInputStream& in, PayloadCounts& c) {
  return nested(in, [&] {
    return for_each_field(in, [&](uint32_t field, WireFormatLite::WireType, uint32_t tag) {
      if (field == kMetadataExtra) ++c.small_items;
      return WireFormatLite::SkipField(&in, tag);
    });
  });
}

std::string mib(uint64_t bytes) { return fmt::format("{:.0f} MiB", double(bytes) / double(1 << 20)); }

}  // namespace

uint64_t PayloadCounts::estimated_bytes() const {
  return modules * kModuleCost + functions * kFunctionCost + processes * kProcessCost + threads * kThreadCost +
         nodes * kNodeCost + metric_values * kMetricValueCost + syscalls * kSyscallCost + small_items * kSmallItemCost;
}

Result<PayloadCounts> count_payload(std::span<const uint8_t> payload) {
  if (payload.size() > size_t(INT_MAX)) return malformed();
  CodedInputStream in(payload.data(), int(payload.size()));
  in.SetRecursionLimit(0);            // groups are never ours; SkipField must not descend into them
  in.PushLimit(int(payload.size()));  // so that the end of the payload reads as "limit reached"
  PayloadCounts c;
  const bool ok = for_each_field(in, [&](uint32_t field, WireFormatLite::WireType type, uint32_t tag) {
    if (!is_message(type)) return WireFormatLite::SkipField(&in, tag);
    switch (field) {
      case kProfileMetadata:
        return count_metadata(in, c);
      case kProfileThreads:
        return count_thread(in, c);
      case kProfileModules:
        ++c.modules;
        break;
      case kProfileFunctions:
        ++c.functions;
        break;
      case kProfileProcesses:
        ++c.processes;
        break;
      default:
        break;
    }
    return WireFormatLite::SkipField(&in, tag);
  });
  if (!ok) return malformed();
  return c;
}

uint64_t memory_budget(uint64_t file_bytes) { return kBaseMemoryBudget + kMemoryBudgetPerFileByte * file_bytes; }

Status check_payload_budget(std::span<const uint8_t> payload, uint64_t file_bytes) {
  Result<PayloadCounts> counts = count_payload(payload);
  if (!counts) return counts.error();
  const uint64_t need = counts->estimated_bytes(), budget = memory_budget(file_bytes);
  if (need <= budget) return Ok{};
  return make_error(fmt::format(
      "invalid (its {} threads, {} call tree nodes, {} functions, {} processes and {} other elements would need "
      "about {} of memory, more than a {}-byte file may use: {}; see docs/format.md, Limits)",
      counts->threads, counts->nodes, counts->functions, counts->processes,
      counts->modules + counts->metric_values + counts->syscalls + counts->small_items, mib(need), file_bytes,
      mib(budget)));
}

}  // namespace callprof::trace

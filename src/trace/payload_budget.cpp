// Counting a payload on the wire (protobuf's CodedInputStream, no messages built), the
// memory estimate made from the counts, and the limit a file's size or the user sets.
#include "trace/payload_budget.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <vector>

namespace callprof::trace {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using WireType = WireFormatLite::WireType;

// Memory per element and per byte: the most any view, export, picture or merge took in
// measurements (docs/format.md, Limits), the parsed messages, the model and what the outputs
// build from them (rows, display names, documents) at their peak together. A node: a flame
// graph that draws every node (a deep chain: 540 bytes a frame) on top of the model. A
// thread's function row: a function its tree calls (per-thread tables).
constexpr uint64_t kModuleCost = 160, kFunctionCost = 576, kCalledFunctionCost = 3072, kProcessCost = 4096,
                   kThreadCost = 1024, kThreadFunctionRowCost = 640, kNodeCost = 576, kMetricValueCost = 16,
                   kSyscallCost = 512, kTimelineEventCost = 72, kSmallItemCost = 64;
// Source lines (model/code_lines.h): a location is in the model, the per-function index and
// the pprof writer's location table; a code entry (an instruction's samples or a call site)
// in the model and the per-function index.
constexpr uint64_t kLocationCost = 320, kCodeEntryCost = 160;
// Per byte: the decompressed payload is held while the model is built; function names are
// copied into the model and the display names, and into every document when called; other
// text is copied a few times; each caller-callee pair's names once more.
constexpr uint64_t kPayloadByteCost = 1, kFunctionTextCost = 4, kCalledTextCost = 8, kOtherTextCost = 6,
                   kEdgeTextCost = 1;
// The program itself, before it reads anything (code, libraries, the allocator's arenas).
constexpr uint64_t kProgramBytes = 16ull << 20;
// Escaping widens a byte to at most this (\u00XX in JSON, &quot; in XML).
constexpr uint64_t kEscapedWidth = 6;

// Field numbers (profile.proto) of the fields counted.
enum Field : uint32_t {
  kProfileMetadata = 1,
  kProfileModules = 2,
  kProfileFunctions = 3,
  kProfileProcesses = 4,
  kProfileThreads = 5,
  kProfileLocations = 6,
  kMetadataExtra = 8,
  kFunctionName = 1,
  kThreadCreatorPath = 5,
  kThreadTree = 11,
  kThreadSyscalls = 17,
  kThreadTimeline = 19,
  kThreadCode = 20,
  kCodeSampleNode = 1,
  kCodeSiteNode = 5,
  kTreeParent = 1,
  kTreeFunction = 2,
  kTreeMetrics = 3,
  kTreeInlined = 4,
  kColumnValues = 2,
  kSyscallErrnos = 8,
  kSyscallBuckets = 9,
  kSyscallCounts = 10,
  kTimelineNode = 1,
  kTimelineDuration = 3,
};

// The fields a message of the schema has: numbers up to `last`, of which those in `text`
// are length-delimited. Protobuf keeps any other field, and a length-delimited one sent as
// a number, as an unknown field: a small item each.
struct Known {
  uint32_t last;
  uint32_t text;  // bit n: field n
  bool unknown_scalar(uint32_t field) const { return field > last || (text >> field & 1); }
  bool unknown_text(uint32_t field) const { return field > last || !(text >> field & 1); }
};
constexpr uint32_t bits(std::initializer_list<uint32_t> fields) {
  uint32_t mask = 0;
  for (uint32_t f : fields) mask |= 1u << f;
  return mask;
}
constexpr Known kFunctionFields{7, bits({1, 2, 5})}, kProcessFields{17, bits({3, 12, 15})},
    kThreadFields{20, bits({3, 11, 17, 18, 19, 20})}, kTreeFields{4, bits({3})}, kColumnFields{2, bits({1})},
    kSyscallFields{10, bits({1, 8})}, kTimelineFields{4, 0}, kLocationFields{4, 0}, kCodeFields{6, 0};

bool is_text(WireType type) { return type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED; }

Error malformed() { return make_error("corrupted (the payload is not a valid profile message)"); }

// Calls on_field(field, wire_type, tag) for each field of the message that fills `in` up to
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

// The values of a repeated scalar field, one if unpacked, the varints of the block if
// packed, each passed to `take`.
template <typename Take>
bool read_scalars(CodedInputStream& in, WireType type, uint32_t tag, Take take) {
  uint64_t v = 0;
  if (type == WireFormatLite::WIRETYPE_VARINT) return in.ReadVarint64(&v) && (take(v), true);
  if (!is_text(type)) return take(0), WireFormatLite::SkipField(&in, tag);
  return nested(in, [&] {
    while (in.BytesUntilLimit() > 0)
      if (!in.ReadVarint64(&v))
        return false;
      else
        take(v);
    return true;
  });
}

// The varints of a packed block: its bytes without a continuation bit (a byte scan, several
// times faster than decoding the tens of millions of metric values a profile may hold);
// nullopt when one is cut off or longer than protobuf reads (10 bytes).
std::optional<uint64_t> packed_count(const uint8_t* block, size_t size) {
  uint64_t ends = 0;
  for (size_t i = 0, run = 0; i < size; ++i)
    if (block[i] & 0x80) {
      if (++run == 10) return std::nullopt;
    } else {
      ++ends;
      run = 0;
    }
  if (size > 0 && block[size - 1] & 0x80) return std::nullopt;
  return ends;
}

bool count_scalars(CodedInputStream& in, WireType type, uint32_t tag, const uint8_t* base, uint64_t& count) {
  if (!is_text(type)) return read_scalars(in, type, tag, [&](uint64_t) { ++count; });
  uint32_t length = 0;
  if (!in.ReadVarint32(&length) || int64_t(length) > in.BytesUntilLimit()) return false;
  const std::optional<uint64_t> n = packed_count(base + in.CurrentPosition(), length);
  if (!n) return false;
  count += *n;
  return in.Skip(int(length));
}

// How wide `text` becomes once escaped.
uint64_t escaped_size(const uint8_t* text, size_t size) {
  uint64_t widened = 0;
  for (size_t i = 0; i < size; ++i) {
    const uint8_t b = text[i];
    widened += b < 0x20 || b >= 0x7f || b == '"' || b == '\\' || b == '<' || b == '>' || b == '&' || b == '\'';
  }
  return size + widened * (kEscapedWidth - 1);
}

// The payload's first walk: elements counted, text measured, nothing allocated.
class PayloadCounter {
 public:
  explicit PayloadCounter(std::span<const uint8_t> payload)
      : in_(payload.data(), int(payload.size())), base_(payload.data()) {
    in_.SetRecursionLimit(0);            // groups are never ours; SkipField must not descend into them
    in_.PushLimit(int(payload.size()));  // so that the end of the payload reads as "limit reached"
    c_.payload_bytes = payload.size();
  }

  bool count() {
    return for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
      if (!is_text(type)) return unknown(tag);
      switch (field) {
        case kProfileMetadata:
          return loose(c_.other_text);
        case kProfileModules:
          return ++c_.modules, loose(c_.other_text);
        case kProfileFunctions:
          return function();
        case kProfileProcesses:
          return strict(kProcessFields, c_.processes, c_.other_text);
        case kProfileThreads:
          return thread();
        case kProfileLocations:
          return strict(kLocationFields, c_.locations, c_.other_text);
        default:
          return ++c_.small_items, text(c_.other_text);
      }
    });
  }

  const PayloadCounts& counts() const { return c_; }

 private:
  bool unknown(uint32_t tag) { return ++c_.small_items, WireFormatLite::SkipField(&in_, tag); }

  // The length-delimited value at the stream's position, measured as escaped text into
  // `into` and skipped.
  bool text(uint64_t& into) {
    uint32_t length = 0;
    if (!in_.ReadVarint32(&length) || int64_t(length) > in_.BytesUntilLimit()) return false;
    into += escaped_size(base_ + in_.CurrentPosition(), length);
    return in_.Skip(int(length));
  }

  // The same for a field of a `known` message: one protobuf does not know is also a small item.
  bool text(Known known, uint32_t field, uint64_t& into) {
    if (known.unknown_text(field)) ++c_.small_items;
    return text(into);
  }

  // A message read loosely: all its length-delimited fields are text, every number a small
  // item (metadata, modules: a few per profile).
  bool loose(uint64_t& text_into) {
    return nested(in_, [&] {
      return for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (field == kMetadataExtra) ++c_.small_items;
        return is_text(type) ? text(text_into) : unknown(tag);
      });
    });
  }

  // A message of `known` fields with no repeated ones: its text, its unknown fields.
  bool strict(Known known, uint64_t& count, uint64_t& text_into) {
    ++count;
    return nested(in_, [&] {
      return for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (is_text(type)) return text(known, field, text_into);
        return known.unknown_scalar(field) ? unknown(tag) : WireFormatLite::SkipField(&in_, tag);
      });
    });
  }

  bool function() {
    ++c_.functions;
    return nested(in_, [&] {
      return for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (is_text(type)) return text(kFunctionFields, field, c_.function_text);
        return kFunctionFields.unknown_scalar(field) ? unknown(tag) : WireFormatLite::SkipField(&in_, tag);
      });
    });
  }

  bool thread() {
    ++c_.threads;
    return nested(in_, [&] {
      return for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (field == kThreadCreatorPath) return count_scalars(in_, type, tag, base_, c_.small_items);
        if (!is_text(type))
          return kThreadFields.unknown_scalar(field) ? unknown(tag) : WireFormatLite::SkipField(&in_, tag);
        if (field == kThreadTree) return tree();
        if (field == kThreadTimeline) return timeline();
        if (field == kThreadCode) return code();
        if (field == kThreadSyscalls) return syscall();
        return text(kThreadFields, field, c_.other_text);
      });
    });
  }

  bool tree() {
    return nested(in_, [&] {
      uint64_t parents = 0, functions = 0;
      const bool ok = for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (field == kTreeParent) return count_scalars(in_, type, tag, base_, parents);
        if (field == kTreeFunction) return count_scalars(in_, type, tag, base_, functions);
        if (field == kTreeInlined) return count_scalars(in_, type, tag, base_, c_.small_items);
        if (field == kTreeMetrics && is_text(type)) return metric_column();
        if (is_text(type)) return text(kTreeFields, field, c_.other_text);
        return kTreeFields.unknown_scalar(field) ? unknown(tag) : WireFormatLite::SkipField(&in_, tag);
      });
      c_.nodes += std::max(parents, functions);
      return ok;
    });
  }

  bool metric_column() {
    return nested(in_, [&] {
      return for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (field == kColumnValues) return count_scalars(in_, type, tag, base_, c_.metric_values);
        return is_text(type) ? text(kColumnFields, field, c_.other_text) : unknown(tag);
      });
    });
  }

  bool syscall() {
    ++c_.syscalls;
    return nested(in_, [&] {
      return for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (field == kSyscallBuckets || field == kSyscallCounts)
          return count_scalars(in_, type, tag, base_, c_.small_items);
        if (field == kSyscallErrnos) return ++c_.small_items, WireFormatLite::SkipField(&in_, tag);
        if (is_text(type)) return text(kSyscallFields, field, c_.other_text);
        return kSyscallFields.unknown_scalar(field) ? unknown(tag) : WireFormatLite::SkipField(&in_, tag);
      });
    });
  }

  bool timeline() {
    return nested(in_, [&] {
      std::array<uint64_t, 3> columns{};  // node, start_ns, duration_ns
      const bool ok = for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (field >= kTimelineNode && field <= kTimelineDuration)
          return count_scalars(in_, type, tag, base_, columns[field - 1]);
        if (is_text(type)) return text(kTimelineFields, field, c_.other_text);
        return kTimelineFields.unknown_scalar(field) ? unknown(tag) : WireFormatLite::SkipField(&in_, tag);
      });
      c_.timeline_events += *std::max_element(columns.begin(), columns.end());
      return ok;
    });
  }

  // A thread's code costs: one entry per instruction sample and per call site.
  bool code() {
    return nested(in_, [&] {
      std::array<uint64_t, 2> columns{};  // sample_node, site_node
      const bool ok = for_each_field(in_, [&](uint32_t field, WireType type, uint32_t tag) {
        if (field == kCodeSampleNode || field == kCodeSiteNode)
          return count_scalars(in_, type, tag, base_, columns[field == kCodeSiteNode]);
        if (field <= kCodeFields.last) return WireFormatLite::SkipField(&in_, tag);  // the entries' other columns
        return is_text(type) ? text(kCodeFields, field, c_.other_text) : unknown(tag);
      });
      c_.code_entries += columns[0] + columns[1];
      return ok;
    });
  }

  CodedInputStream in_;
  const uint8_t* base_;
  PayloadCounts c_;
};

// The second walk, once the counts are within the limit: the names along the paths. Each
// occurrence of the top-level field `field` (its value's bytes) goes to `take`.
template <typename Take>
bool each_top_level(std::span<const uint8_t> payload, uint32_t field, Take take) {
  CodedInputStream in(payload.data(), int(payload.size()));
  in.SetRecursionLimit(0);
  in.PushLimit(int(payload.size()));
  return for_each_field(in, [&](uint32_t f, WireType type, uint32_t tag) {
    if (f != field || !is_text(type)) return WireFormatLite::SkipField(&in, tag);
    return nested(in, [&] {
      const std::span<const uint8_t> value(payload.data() + in.CurrentPosition(), size_t(in.BytesUntilLimit()));
      return take(value) && in.Skip(int(value.size()));
    });
  });
}

// The same for the fields of one message's bytes.
template <typename OnField>
bool each_field_of(std::span<const uint8_t> message, OnField on_field) {
  CodedInputStream in(message.data(), int(message.size()));
  in.SetRecursionLimit(0);
  in.PushLimit(int(message.size()));
  return for_each_field(in,
                        [&](uint32_t field, WireType type, uint32_t tag) { return on_field(in, field, type, tag); });
}

// Per function, in id order: its name's size and all its text's, as escaped (the last of a
// repeated field wins, as in protobuf).
struct FunctionTexts {
  std::vector<uint32_t> name, all;
};

bool function_texts(std::span<const uint8_t> payload, FunctionTexts& out) {
  return each_top_level(payload, kProfileFunctions, [&](std::span<const uint8_t> function) {
    std::array<uint64_t, kFunctionFields.last + 1> sizes{};
    const bool ok = each_field_of(function, [&](CodedInputStream& in, uint32_t field, WireType type, uint32_t tag) {
      if (!is_text(type) || field >= sizes.size()) return WireFormatLite::SkipField(&in, tag);
      return nested(in, [&] {
        sizes[field] = escaped_size(function.data() + in.CurrentPosition(), size_t(in.BytesUntilLimit()));
        return in.Skip(in.BytesUntilLimit());
      });
    });
    const uint64_t all = std::accumulate(sizes.begin(), sizes.end(), uint64_t(0));
    out.name.push_back(uint32_t(std::min<uint64_t>(sizes[kFunctionName], UINT32_MAX)));
    out.all.push_back(uint32_t(std::min<uint64_t>(all, UINT32_MAX)));
    return ok;
  });
}

// Appends the values of the message's repeated uint32 field `field` to `values`.
bool column(std::span<const uint8_t> message, uint32_t field, std::vector<uint32_t>& values) {
  return each_field_of(message, [&](CodedInputStream& in, uint32_t f, WireType type, uint32_t tag) {
    if (f != field) return WireFormatLite::SkipField(&in, tag);
    if (!is_text(type)) return read_scalars(in, type, tag, [&](uint64_t v) { values.push_back(uint32_t(v)); });
    return nested(in, [&] {  // a packed block: room for it at once, not by doubling
      const uint8_t* block = message.data() + in.CurrentPosition();
      values.reserve(values.size() + packed_count(block, size_t(in.BytesUntilLimit())).value_or(0));
      uint64_t v = 0;
      while (in.BytesUntilLimit() > 0)
        if (!in.ReadVarint64(&v))
          return false;
        else
          values.push_back(uint32_t(v));
      return true;
    });
  });
}

// A thread's tree columns (protobuf merges repeated occurrences of the tree).
bool tree_columns(std::span<const uint8_t> thread, std::vector<uint32_t>& parent, std::vector<uint32_t>& function) {
  return each_field_of(thread, [&](CodedInputStream& in, uint32_t field, WireType type, uint32_t tag) {
    if (field != kThreadTree || !is_text(type)) return WireFormatLite::SkipField(&in, tag);
    return nested(in, [&] {
      const std::span<const uint8_t> tree(thread.data() + in.CurrentPosition(), size_t(in.BytesUntilLimit()));
      return column(tree, kTreeParent, parent) && column(tree, kTreeFunction, function) && in.Skip(int(tree.size()));
    });
  });
}

// Distinct 64-bit keys (open addressing, linear probing), grown as keys come: a tree's
// caller-callee pairs, far fewer than its nodes in honest profiles, so the table stays small
// enough for the caches.
class KeySet {
 public:
  // Room for up to `keys` keys to start with (a thread's nodes: most threads have few).
  explicit KeySet(size_t keys) { resize(std::bit_ceil(2 * std::min<size_t>(keys, 4096) + 2)); }
  // Whether `key` was not in the set yet.
  bool insert(uint64_t key) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (size_t i = slot(key);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] == key) return false;
      if (slots_[i] == kEmpty) return slots_[i] = key, ++size_, true;
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);  // caller and callee both "none": never counted
  size_t slot(uint64_t key) const { return size_t((key * 0x9e3779b97f4a7c15ull) >> shift_); }
  void grow() { resize(slots_.size() * 2); }
  void resize(size_t slots) {
    std::vector<uint64_t> old(slots, kEmpty);
    old.swap(slots_);
    shift_ = 64 - std::countr_zero(slots_.size());
    for (uint64_t key : old)
      if (key != kEmpty)
        for (size_t i = slot(key);; i = (i + 1) & (slots_.size() - 1))
          if (slots_[i] == kEmpty) {
            slots_[i] = key;
            break;
          }
  }
  std::vector<uint64_t> slots_;
  size_t size_ = 0;
  int shift_ = 0;
};

// What the paths of the profile's threads add to the counts, one thread at a time.
class PathCounter {
 public:
  PathCounter(const FunctionTexts& texts, PayloadCounts& counts)
      : texts_(texts), counts_(counts), last_thread_(texts.name.size(), UINT32_MAX) {}

  // One thread's tree: the functions its nodes call (each a row of the thread's own table,
  // and of every output once any thread calls it), and each distinct caller-callee pair's
  // two names (the rows of the edge tables). Ids out of range count nothing (validation
  // refuses them later).
  bool add(std::span<const uint8_t> thread) {
    std::vector<uint32_t> parent, function;
    if (!tree_columns(thread, parent, function)) return false;
    const size_t nodes = std::min(parent.size(), function.size());
    KeySet edges(nodes);
    for (size_t i = 1; i < nodes; ++i) {
      const bool has_parent = parent[i] > 0 && parent[i] < i;
      const uint32_t callee = function[i], caller = has_parent ? function[parent[i]] : UINT32_MAX;
      if (callee < last_thread_.size() && last_thread_[callee] != thread_) {
        last_thread_[callee] = thread_;
        ++counts_.thread_function_rows;
      }
      if (edges.insert((uint64_t(caller) << 32) | callee)) counts_.edge_text += name(caller) + name(callee);
    }
    ++thread_;
    return true;
  }

  // The functions called by some thread, and their text.
  void finish() {
    for (size_t f = 0; f < last_thread_.size(); ++f)
      if (last_thread_[f] != UINT32_MAX) ++counts_.called_functions, counts_.called_text += texts_.all[f];
  }

 private:
  uint64_t name(uint32_t f) const { return f < texts_.name.size() ? texts_.name[f] : 0; }

  const FunctionTexts& texts_;
  PayloadCounts& counts_;
  std::vector<uint32_t> last_thread_;  // per function, the last thread that called it
  uint32_t thread_ = 0;
};

bool count_paths(std::span<const uint8_t> payload, PayloadCounts& counts) {
  FunctionTexts texts;
  texts.name.reserve(counts.functions);
  texts.all.reserve(counts.functions);
  if (!function_texts(payload, texts)) return false;
  PathCounter paths(texts, counts);
  if (!each_top_level(payload, kProfileThreads, [&](std::span<const uint8_t> thread) { return paths.add(thread); }))
    return false;
  paths.finish();
  return true;
}

std::string mib(uint64_t bytes) {
  if (bytes >= (10ull << 30)) return fmt::format("{:.0f} GiB", double(bytes) / double(1ull << 30));
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", double(bytes) / double(1ull << 30));
  return fmt::format("{:.0f} MiB", std::ceil(double(bytes) / double(1 << 20)));
}

// A limit above `bytes`, as the user would write it: whole MiB below 1 GiB, else GiB.
std::string suggested_limit(uint64_t bytes) {
  if (bytes < (1ull << 30)) return fmt::format("{}M", (bytes >> 20) + 1);
  return fmt::format("{}G", (bytes >> 30) + 1);
}

// What the limit is, for a message: "a 277340-byte file may take 200 MiB".
std::string limit_text(uint64_t limit, uint64_t file_bytes) {
  if (const char* set = std::getenv(kMemoryLimitVariable); set && *set)
    return fmt::format("{}={} allows {}", kMemoryLimitVariable, set, mib(limit));
  return fmt::format("a {}-byte file may take {}", file_bytes, mib(limit));
}

std::string how_to_raise(uint64_t need) {
  return fmt::format("to read it, set {}={}; docs/format.md, Limits", kMemoryLimitVariable, suggested_limit(need));
}

// The parts of the estimate, largest first, for the message.
struct Part {
  uint64_t bytes;
  std::string what;
};
std::vector<Part> parts(const PayloadCounts& c) {
  auto its = [](uint64_t count, const char* one, const char* many) {
    return fmt::format("its {} {}", count, count == 1 ? one : many);
  };
  std::vector<Part> p = {
      {kProgramBytes, "the program itself"},
      {c.payload_bytes * kPayloadByteCost, fmt::format("its {}-byte payload", c.payload_bytes)},
      {c.threads * kThreadCost, its(c.threads, "thread", "threads")},
      {c.thread_function_rows * kThreadFunctionRowCost,
       its(c.thread_function_rows, "per-thread function row", "per-thread function rows")},
      {c.nodes * kNodeCost + c.metric_values * kMetricValueCost, its(c.nodes, "call tree node", "call tree nodes")},
      {c.functions * kFunctionCost + c.function_text * kFunctionTextCost, its(c.functions, "function", "functions")},
      {c.called_functions * kCalledFunctionCost + c.called_text * kCalledTextCost,
       fmt::format("the {} functions its paths call", c.called_functions)},
      {c.edge_text * kEdgeTextCost, "the names of its caller-callee pairs"},
      {c.processes * kProcessCost, its(c.processes, "process", "processes")},
      {c.modules * kModuleCost, its(c.modules, "module", "modules")},
      {c.syscalls * kSyscallCost, its(c.syscalls, "system call table", "system call tables")},
      {c.timeline_events * kTimelineEventCost, its(c.timeline_events, "timeline event", "timeline events")},
      {c.locations * kLocationCost, its(c.locations, "code location", "code locations")},
      {c.code_entries * kCodeEntryCost, its(c.code_entries, "located cost", "located costs")},
      {c.small_items * kSmallItemCost, its(c.small_items, "small item", "small items")},
      {c.other_text * kOtherTextCost, "its other text"},
  };
  std::stable_sort(p.begin(), p.end(), [](const Part& a, const Part& b) { return a.bytes > b.bytes; });
  return p;
}

uint64_t total(const std::vector<Part>& parts) {
  uint64_t sum = 0;
  for (const Part& p : parts) sum += p.bytes;
  return sum;
}

Error over_budget(const PayloadCounts& counts, uint64_t limit, uint64_t file_bytes) {
  const std::vector<Part> p = parts(counts);
  return make_error(
      fmt::format("too large (reading and showing it would take about {} of memory, mostly for {} ({}) "
                  "and {} ({}); {}; {})",
                  mib(total(p)), p[0].what, mib(p[0].bytes), p[1].what, mib(p[1].bytes), limit_text(limit, file_bytes),
                  how_to_raise(total(p))));
}

// The first walk alone.
Result<PayloadCounts> count_elements(std::span<const uint8_t> payload) {
  if (payload.size() > size_t(INT_MAX)) return malformed();
  PayloadCounter counter(payload);
  if (!counter.count()) return malformed();
  return counter.counts();
}

// "K", "MB", "GiB" and the like: the power of 1024 they stand for; -1 for anything else.
int unit_power(std::string unit) {
  for (char& ch : unit) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  static constexpr std::array<std::string_view, 5> kPrefixes = {"", "K", "M", "G", "T"};
  for (size_t i = 0; i < kPrefixes.size(); ++i) {
    const std::string prefix(kPrefixes[i]);
    if (unit == prefix || unit == prefix + "B" || (i > 0 && unit == prefix + "IB")) return int(i);
  }
  return -1;
}

}  // namespace

uint64_t PayloadCounts::estimated_bytes() const { return total(parts(*this)); }

Result<PayloadCounts> count_payload(std::span<const uint8_t> payload) {
  Result<PayloadCounts> counts = count_elements(payload);
  if (counts && !count_paths(payload, *counts)) return malformed();
  return counts;
}

Result<uint64_t> parse_memory_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  const std::string number(text.substr(0, digits));
  const int power = unit_power(std::string(text.substr(digits)));
  char* end = nullptr;
  const double bytes =
      digits > 0 && digits <= 20 && power >= 0 ? std::strtod(number.c_str(), &end) * std::ldexp(1.0, 10 * power) : 0;
  if (end != number.c_str() + number.size() || !(bytes >= 1) || bytes > std::ldexp(1.0, 60))
    return make_error(fmt::format("'{}' is not a memory size (bytes, or a number with K, M, G or T: 512M, 4G)", text));
  return uint64_t(bytes);
}

Result<uint64_t> memory_limit(uint64_t file_bytes) {
  const char* set = std::getenv(kMemoryLimitVariable);
  if (set == nullptr || *set == '\0') return kBaseMemoryBudget + kMemoryBudgetPerFileByte * file_bytes;
  Result<uint64_t> limit = parse_memory_size(set);
  if (!limit) return make_error(fmt::format("{}: {}", kMemoryLimitVariable, limit.error().message));
  return limit;
}

Status check_header_budget(uint64_t payload_bytes, uint64_t file_bytes) {
  Result<uint64_t> limit = memory_limit(file_bytes);
  if (!limit) return limit.error();
  const uint64_t need = 2 * payload_bytes;
  if (need <= *limit) return Ok{};
  return make_error(
      fmt::format("too large (its header declares a {}-byte payload, which takes at least {} to read; "
                  "{}; {})",
                  payload_bytes, mib(need), limit_text(*limit, file_bytes), how_to_raise(need)));
}

Result<uint64_t> check_payload_budget(std::span<const uint8_t> payload, uint64_t file_bytes) {
  Result<uint64_t> limit = memory_limit(file_bytes);
  if (!limit) return limit.error();
  // The elements first: the second walk allocates per function and per node, which the
  // first has then found affordable.
  Result<PayloadCounts> counts = count_elements(payload);
  if (!counts) return counts.error();
  if (counts->estimated_bytes() > *limit) return over_budget(*counts, *limit, file_bytes);
  if (!count_paths(payload, *counts)) return malformed();
  if (counts->estimated_bytes() > *limit) return over_budget(*counts, *limit, file_bytes);
  return counts->estimated_bytes();
}

}  // namespace callprof::trace

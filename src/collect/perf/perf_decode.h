// Pure decoding of perf_event ring-buffer bytes into the structs of perf_records.h. No system
// calls and no trust in the input: hand-built, truncated and fuzzed bytes run exactly this code.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "collect/perf/perf_records.h"

namespace callprof::perf {

// What the records carry: the perf_event_attr fields the session opened its events with.
struct DecodeFormat {
  uint64_t sample_type = 0;          // PERF_SAMPLE_* bits; see format_supported()
  uint64_t regs_user_mask = 0;       // perf's x86 register bits (kPerfRegsMask)
  bool sample_id_all = true;         // non-sample records end with the sample_id fields
  std::vector<uint64_t> switch_ids;  // event ids of the off-CPU (context-switch) samplers
};

// perf's x86 register numbering (asm/perf_regs.h): the GPRs a DWARF unwinder needs.
// Flags and segment registers are left out (the kernel refuses DS/ES/FS/GS on x86-64).
inline constexpr uint64_t kPerfRegsMask = 0x1ffull | (0xffull << 16);  // ax..ip, r8..r15

// Why records were lost: PERF_RECORD_LOST (the ring was full) or PERF_RECORD_LOST_SAMPLES
// (the kernel could not build a sample, e.g. a stack copy failed).
enum class LostKind : uint8_t { Records, Samples };

// Receives decoded records, in ring order. Every hook defaults to "ignore".
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void on_sample(Sample&&) {}
  virtual void on_mapping(Mapping&&) {}
  virtual void on_task(TaskEvent&&) {}
  virtual void on_switch(const SwitchEvent&) {}
  virtual void on_lost(const LostEvent&, LostKind) {}
};

struct DecodeStats {
  uint64_t records = 0, samples = 0, mappings = 0, tasks = 0, switches = 0;
  uint64_t lost_records = 0;  // sum of PERF_RECORD_LOST counts
  uint64_t lost_samples = 0;  // sum of PERF_RECORD_LOST_SAMPLES counts
  uint64_t throttles = 0;     // PERF_RECORD_THROTTLE: the kernel slowed sampling down
  uint64_t other = 0;         // well-formed records of kinds we do not use
  uint64_t malformed = 0;     // records (or ring stretches) rejected as impossible
};

// True when every PERF_SAMPLE_* bit of the format is one decode_record can lay out.
bool format_supported(const DecodeFormat& format);

// Decodes one whole record (header included). A malformed record is counted and skipped.
void decode_record(const DecodeFormat& format, std::span<const uint8_t> record, RecordSink& sink, DecodeStats& stats);

// Decodes the records between tail and head (free-running byte counters, as in
// perf_event_mmap_page) of a ring data area whose size is a power of two, including those
// that wrap around its end. Returns the new tail (always head: a header that cannot be
// right means the rest of the stretch cannot be framed, so it is counted and skipped).
uint64_t decode_ring(const DecodeFormat& format, std::span<const uint8_t> ring, uint64_t tail, uint64_t head,
                     RecordSink& sink, DecodeStats& stats);

}  // namespace callprof::perf

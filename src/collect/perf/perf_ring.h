// One memory-mapped perf ring buffer: the metadata page plus a power-of-two data area that
// the kernel writes and we drain. Owns the mapping (and not the event's descriptor).
#pragma once

#include <cstddef>
#include <cstdint>

#include "collect/perf/perf_decode.h"
#include "util/result.h"

namespace callprof::perf {

class PerfRing {
 public:
  // data_bytes: a power of two, at least one page.
  static Result<PerfRing> map(int fd, size_t data_bytes);
  PerfRing() = default;
  PerfRing(PerfRing&& other) noexcept { *this = std::move(other); }
  PerfRing& operator=(PerfRing&& other) noexcept;
  ~PerfRing();

  // Decodes everything written since the last drain and hands the space back to the kernel.
  // Returns the number of bytes that were waiting (the ring's fill level before draining).
  size_t drain(const DecodeFormat& format, RecordSink& sink, DecodeStats& stats);
  size_t data_bytes() const { return data_bytes_; }
  void unmap();

 private:
  void* base_ = nullptr;  // metadata page, then the data area
  size_t data_bytes_ = 0;
};

}  // namespace callprof::perf

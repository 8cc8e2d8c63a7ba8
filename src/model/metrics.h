// The metric vector carried by every calling-context-tree node. Each metric is a node's
// *base* (self) value; cum (total) is derived by summing a subtree (see cumulative()).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>

namespace callprof {

enum class Metric : uint8_t {
  Calls,          // completed or open activations of this path
  WallNs,         // self wall time, ns
  MinWallNs,      // smallest self wall time of one call, ns
  MaxWallNs,      // largest self wall time of one call, ns
  CpuNs,          // self on-CPU time, ns
  OffCpuNs,       // self off-CPU time, ns: switched out and not wanting the CPU (blocked, sleeping)
  Samples,        // sampled profiles: samples whose leaf is this path
  IndirectCalls,  // of Calls, those made through a pointer (the call instruction was indirect)
  // Self time waiting for a CPU: switched out involuntarily (preempted), so the thread was
  // runnable all along. Neither on-CPU nor blocked: CpuNs + OffCpuNs + PreemptedNs = WallNs
  // where the split was measured. (The file stores offcpu_ns with this time included, as
  // it always has; proto_convert.cpp converts.)
  PreemptedNs,
  Switches,  // context switches while this path was on top of the stack
  PageFaults,
  AllocCalls,     // malloc/calloc/realloc/aligned allocations/operator new
  AllocBytes,     // bytes those requested
  FreeCalls,      // free/operator delete of non-null pointers
  ExcludedCalls,  // calls made from here to filtered-out functions (their hook cost is in self)
  Syscalls,       // system calls made here (on `[syscall] NAME` leaves; cum: made below a path)
  SyscallNs,      // their durations, entry to exit
  SyscallErrors,  // of Syscalls, those that returned an error
  FoldedCalls,  // of Calls, those made after the runtime folded the function (auto-fold): their time is in the caller's
                // self
  kCount
};
inline constexpr size_t kMetricCount = static_cast<size_t>(Metric::kCount);

enum class MergeKind : uint8_t { Sum, Min, Max };

struct MetricInfo {
  std::string_view name;  // stable: used in the file format and JSON
  std::string_view unit;  // "count" or "ns"
  MergeKind merge;
};

inline constexpr std::array<MetricInfo, kMetricCount> kMetricInfo = {{
    {"calls", "count", MergeKind::Sum},
    {"wall_ns", "ns", MergeKind::Sum},
    {"min_wall_ns", "ns", MergeKind::Min},
    {"max_wall_ns", "ns", MergeKind::Max},
    {"cpu_ns", "ns", MergeKind::Sum},
    {"offcpu_ns", "ns", MergeKind::Sum},
    {"samples", "count", MergeKind::Sum},
    {"indirect_calls", "count", MergeKind::Sum},
    {"preempted_ns", "ns", MergeKind::Sum},
    {"switches", "count", MergeKind::Sum},
    {"page_faults", "count", MergeKind::Sum},
    {"alloc_calls", "count", MergeKind::Sum},
    {"alloc_bytes", "bytes", MergeKind::Sum},
    {"free_calls", "count", MergeKind::Sum},
    {"excluded_calls", "count", MergeKind::Sum},
    {"syscalls", "count", MergeKind::Sum},
    {"syscall_ns", "ns", MergeKind::Sum},
    {"syscall_errors", "count", MergeKind::Sum},
    {"folded_calls", "count", MergeKind::Sum},
}};

inline constexpr const MetricInfo& info(Metric m) { return kMetricInfo[static_cast<size_t>(m)]; }

// Two values of metric `m` combined as its MergeKind says (a sum, or the smaller or larger).
inline constexpr uint64_t merge_values(Metric m, uint64_t a, uint64_t b) {
  switch (info(m).merge) {
    case MergeKind::Sum:
      return a + b;
    case MergeKind::Min:
      return a < b ? a : b;
    case MergeKind::Max:
      return a > b ? a : b;
  }
  return a;
}

// A fixed-size vector of metrics. Min metrics start at "unset" (UINT64_MAX) so that
// merging with an empty vector is the identity for every kind.
class Metrics {
 public:
  static constexpr uint64_t kUnset = std::numeric_limits<uint64_t>::max();

  Metrics() {
    for (size_t i = 0; i < kMetricCount; ++i) v_[i] = kMetricInfo[i].merge == MergeKind::Min ? kUnset : 0;
  }

  uint64_t operator[](Metric m) const { return v_[static_cast<size_t>(m)]; }
  uint64_t& operator[](Metric m) { return v_[static_cast<size_t>(m)]; }
  bool has_min(Metric m) const { return (*this)[m] != kUnset; }

  // Combine another vector into this one, each metric by its merge kind.
  void merge(const Metrics& o) {
    for (size_t i = 0; i < kMetricCount; ++i) {
      switch (kMetricInfo[i].merge) {
        case MergeKind::Sum:
          v_[i] += o.v_[i];
          break;
        case MergeKind::Min:
          v_[i] = v_[i] < o.v_[i] ? v_[i] : o.v_[i];
          break;
        case MergeKind::Max:
          v_[i] = v_[i] > o.v_[i] ? v_[i] : o.v_[i];
          break;
      }
    }
  }

  // Add only the additive metrics (used to derive cum from base).
  void add_sums(const Metrics& o) {
    for (size_t i = 0; i < kMetricCount; ++i)
      if (kMetricInfo[i].merge == MergeKind::Sum) v_[i] += o.v_[i];
  }

  bool operator==(const Metrics&) const = default;

 private:
  std::array<uint64_t, kMetricCount> v_;
};

}  // namespace callprof

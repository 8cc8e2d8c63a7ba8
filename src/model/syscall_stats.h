// Per-thread statistics of one system call (SPEC §1.4): counts, errors by errno and the
// distribution of durations. The call paths that lead to it live in the thread's tree as
// `[syscall] NAME` leaves; this is what a path cannot hold: percentiles and errnos.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "model/metrics.h"

namespace callprof {

// The function name of a system call's leaf in a calling context tree: "[syscall] write".
inline constexpr std::string_view kSyscallLeafPrefix = "[syscall] ";

// Durations in log-linear buckets: exact below 32 ns, then 16 buckets per power of two, so
// a percentile read from it is within 1/32 (3 %) of a recorded duration. Sparse: a
// recording touches few buckets, and histograms of threads merge by adding counts.
class DurationHistogram {
 public:
  static constexpr unsigned kSubBits = 4;
  static constexpr uint32_t kBuckets = (64 - kSubBits + 1) << kSubBits;  // bucket(UINT64_MAX) + 1

  static uint32_t bucket(uint64_t ns) {
    if (ns < (2u << kSubBits)) return uint32_t(ns);
    const unsigned top = 63u - unsigned(__builtin_clzll(ns));  // >= kSubBits + 1
    const unsigned shift = top - kSubBits;
    return ((shift + 1) << kSubBits) + uint32_t((ns >> shift) & ((1u << kSubBits) - 1));
  }
  // The smallest duration of a bucket, and the first of the next.
  static uint64_t lower(uint32_t b) {
    if (b < (2u << kSubBits)) return b;
    const unsigned shift = (b >> kSubBits) - 1;
    return (uint64_t((1u << kSubBits) | (b & ((1u << kSubBits) - 1)))) << shift;
  }
  static uint64_t upper(uint32_t b) {
    return b < (2u << kSubBits) ? b + 1 : b + 1 >= kBuckets ? UINT64_MAX : lower(b + 1);
  }

  void add(uint64_t ns, uint64_t count = 1) { counts_[bucket(ns)] += count; }
  void merge(const DurationHistogram& o) {
    for (auto [b, n] : o.counts_) counts_[b] += n;
  }
  // The duration below which a fraction q (0..1) of the calls fall: the middle of its bucket.
  uint64_t quantile(double q) const;
  const std::map<uint32_t, uint64_t>& counts() const { return counts_; }
  std::map<uint32_t, uint64_t>& counts() { return counts_; }
  bool operator==(const DurationHistogram&) const = default;

 private:
  std::map<uint32_t, uint64_t> counts_;  // bucket -> calls
};

inline uint64_t DurationHistogram::quantile(double q) const {
  uint64_t total = 0;
  for (auto [b, n] : counts_) total += n;
  if (total == 0) return 0;
  const double want = q * double(total);
  uint64_t seen = 0;
  for (auto [b, n] : counts_) {
    seen += n;
    if (double(seen) >= want) return (lower(b) + upper(b) - 1) / 2;
  }
  return lower(counts_.rbegin()->first);
}

// The calls of one system call on one path (or from one exact-mode node): what its
// `[syscall] NAME` leaf holds, summed as the calls arrive.
struct SyscallSums {
  uint64_t calls = 0, errors = 0, total_ns = 0, min_ns = UINT64_MAX, max_ns = 0;

  void add(uint64_t ns, int err) {
    ++calls;
    errors += err != 0;
    total_ns += ns;
    min_ns = ns < min_ns ? ns : min_ns;
    max_ns = ns > max_ns ? ns : max_ns;
  }
  // Into a leaf's metrics: Calls and Syscalls (both the count), SyscallNs, SyscallErrors,
  // Min/MaxWallNs merged. WallNs is the caller's to decide.
  // (`m`: a Metrics or a tree node's MetricRowRef.)
  template <typename MetricVector>
  void add_to(MetricVector&& m) const {
    m[Metric::Calls] += calls;
    m[Metric::Syscalls] += calls;
    m[Metric::SyscallNs] += total_ns;
    m[Metric::SyscallErrors] += errors;
    const uint64_t lo = m[Metric::MinWallNs], hi = m[Metric::MaxWallNs];
    m[Metric::MinWallNs] = min_ns < lo ? min_ns : lo;
    m[Metric::MaxWallNs] = max_ns > hi ? max_ns : hi;
  }
};

struct SyscallStats {
  std::string name;     // "write"
  uint32_t number = 0;  // x86-64 system call number
  uint64_t calls = 0;
  uint64_t errors = 0;  // calls that returned -errno
  uint64_t total_ns = 0;
  uint64_t min_ns = UINT64_MAX;
  uint64_t max_ns = 0;
  std::map<int, uint64_t> errnos;  // errno -> calls that failed with it
  DurationHistogram durations;

  void add(uint64_t ns, int err) {
    ++calls;
    total_ns += ns;
    min_ns = ns < min_ns ? ns : min_ns;
    max_ns = ns > max_ns ? ns : max_ns;
    durations.add(ns);
    if (err != 0) ++errors, ++errnos[err];
  }
  void merge(const SyscallStats& o) {
    calls += o.calls;
    errors += o.errors;
    total_ns += o.total_ns;
    min_ns = o.min_ns < min_ns ? o.min_ns : min_ns;
    max_ns = o.max_ns > max_ns ? o.max_ns : max_ns;
    for (auto [e, n] : o.errnos) errnos[e] += n;
    durations.merge(o.durations);
  }
  // A percentile clamped to what was measured (a bucket's middle can lie outside).
  uint64_t percentile(double q) const {
    if (calls == 0) return 0;
    if (q >= 1) return max_ns;
    uint64_t v = durations.quantile(q);
    return v < min_ns ? min_ns : v > max_ns ? max_ns : v;
  }
  bool operator==(const SyscallStats&) const = default;
};

}  // namespace callprof

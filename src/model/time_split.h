// How a node's self time splits when the CPU/off-CPU split was measured: on the CPU, blocked
// (Metric::OffCpuNs: switched out and not wanting the CPU) and waiting for a CPU
// (Metric::PreemptedNs: switched out involuntarily, runnable all along), the three adding up
// to the self wall time. The runtime's dump and the profile file hold the switched-out time
// as one number that includes the preempted part; every place that goes from one form to the
// other goes through these functions, so they cap and round the same way.
#pragma once

#include <algorithm>
#include <cstdint>

#include "model/metrics.h"

namespace callprof {

// Switched-out time, apart: blocked + preempted = the whole.
struct OffCpuParts {
  uint64_t blocked = 0;
  uint64_t preempted = 0;
};

// `switched_out` (every switched-out interval) of which `preempted` began with an
// involuntary switch; preempted is capped at the whole.
constexpr OffCpuParts split_switched_out(uint64_t switched_out, uint64_t preempted) {
  const uint64_t p = std::min(preempted, switched_out);
  return {switched_out - p, p};
}

// Self time `wall` split in three: on_cpu + blocked + preempted = wall. The switched-out time
// (preempted included) is capped at the wall time, the preempted part at the switched-out time.
struct SelfSplit {
  uint64_t on_cpu = 0;
  uint64_t blocked = 0;
  uint64_t preempted = 0;
};

constexpr SelfSplit split_self(uint64_t wall, uint64_t switched_out, uint64_t preempted) {
  const OffCpuParts off = split_switched_out(std::min(switched_out, wall), preempted);
  return {wall - off.blocked - off.preempted, off.blocked, off.preempted};
}

// Time not running, whatever kept the thread off the CPU: blocked + waiting for a CPU. What
// the profile file's offcpu_ns holds, and what formats with a single notion of off-CPU time
// (collapsed stacks, flame graphs, perf's and bcc's offcputime) mean by it. `Row` is anything
// indexed by Metric (Metrics, MetricRow, MetricView).
template <typename Row>
uint64_t switched_out_ns(const Row& m) {
  return uint64_t(m[Metric::OffCpuNs]) + uint64_t(m[Metric::PreemptedNs]);
}

// A node's self time as split_self() splits it; with `cpu_measured` false, all of it is on
// the CPU (nothing says otherwise).
template <typename Row>
SelfSplit split_self_of(const Row& m, bool cpu_measured = true) {
  if (!cpu_measured) return {uint64_t(m[Metric::WallNs]), 0, 0};
  return split_self(m[Metric::WallNs], switched_out_ns(m), m[Metric::PreemptedNs]);
}

}  // namespace callprof

// Where exact mode's times and the samples inside it disagree (record -F in exact mode;
// docs/modes.md, "Samples inside exact mode"). Per function: the on-CPU self time exact
// mode measured for it, against the CPU time of the samples exact mode would charge to it
// (its nodes' own, and those of the nodes below that only samples reached: functions exact
// mode does not see, whose time is its self), beyond the samples' counting error.
#pragma once

#include <cstdint>
#include <vector>

#include "model/call_tree.h"

namespace callprof {

struct SampleDisagreement {
  FunctionId function = kNoFunction;
  uint64_t exact_ns = 0;    // exact self on CPU (all of self where the split was not measured)
  uint64_t sampled_ns = 0;  // the samples exact mode charges to it, times the period
  uint64_t error_ns = 0;    // the samples' counting error: 3 sqrt(samples) periods (Poisson, 3 sigma)
};

// The functions whose two times differ by more than the error and by at least `min_share`
// of all the samples' time, largest difference first. `cpu_measured`: exact self has an
// on-CPU part (CpuNs); else the whole self time is compared.
std::vector<SampleDisagreement> sample_disagreements(const CallTree& tree, double period_ns, bool cpu_measured,
                                                     double min_share = 0.01);

}  // namespace callprof

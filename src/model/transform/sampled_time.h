// `--time sampled` (docs/modes.md, "Samples inside exact mode"): the samples' CPU time as
// every node's self time, in place of what exact mode measured. Each cpu-clock sample
// stands for one period of CPU (1 s / the frequency): a node's self time, and its on-CPU
// time, become its samples times the period; its off-CPU and run-queue times, which
// samples do not see, become 0; its per-call extremes, which samples cannot give, go.
// Calls and every other count stay: the counts are exact mode's, the times the samples'.
#pragma once

#include <string>

#include "model/profile.h"
#include "util/result.h"

namespace callprof {

// The nanoseconds one sample stands for; an error (one line) when the profile has no
// cpu-clock samples to take times from.
Result<double> sample_period_ns(const Profile& profile);

void use_sampled_time(CallTree& tree, double period_ns);

// Exact mode's profile with samples taken inside it (record -F in exact mode): each sample
// under the node on top of its thread's shadow stack (metadata.sampling.unwind).
inline bool samples_inside_exact(const Profile& p) {
  return p.meta.sampling && p.meta.sampling->unwind == Unwinding::ShadowStack;
}

}  // namespace callprof

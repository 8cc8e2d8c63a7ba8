// The cost of probe hits on this machine, measured before recording (SPEC §1.3 "cost
// shown"): functions of callprof's own get probes placed as the target's are, and are
// timed with them and without.
#pragma once

#include <cstdint>

#include "collect/perf/perf_options.h"
#include "util/result.h"

namespace callprof::probes {

// ns per hit, by kind of hit (probe_placement.h): a single-stepped one costs a breakpoint
// trap and a debug trap, an emulated one the breakpoint trap alone, and a return probe's
// hit the kernel's trampoline and its uretprobe system call.
struct ProbeCosts {
  uint64_t single_step_ns = 0, emulated_ns = 0, return_ns = 0;
  // Of a call's probes, the time between its entry's timestamp and its exit's (what
  // compensation takes from its self time; HitCosts): by kinds of entry and exit.
  uint64_t inside_stepped_ns = 0, inside_stepped_return_ns = 0, inside_emulated_return_ns = 0;
  bool measured() const { return single_step_ns > 0; }
};

// For probes opened with `options`' sample layout. Takes ~0.1-0.3 s (a few thousand hits).
Result<ProbeCosts> measure_probe_costs(const perf::SamplingOptions& options);

}  // namespace callprof::probes

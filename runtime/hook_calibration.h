// Overhead compensation: the hooks measure their own cost per call at start-up, so the
// recorder can subtract it (SPEC §1.1). See docs/design.md, "Compensation".
#pragma once

#include "process.h"

namespace callprof::rt {

// Measures the hooks' cost per compiler (wire::kHooks*; `compilers`: a bit for each set to
// measure, kHooksPatched for entries patched into calls of the trampolines, which needs a
// patched window open) on thread state `s` (freshly attached), with each set's check value
// (wire::CalibrationFile::check); afterwards the thread's profile is as new.
void calibrate_hooks(ThreadState* s, wire::DumpHookCosts costs[wire::kHookSets], uint64_t check[wire::kHookSets],
                     uint8_t compilers);
// The check value of hook set `set` measured now on thread state `s` (a few rounds of the
// leaf loop: 0.73-0.77 ms measured by bpftrace on the Intel Xeon VM): a cached calibration is used when it still
// matches. 0 when the set cannot be checked (no such workload in this runtime, or patched entries).
uint64_t check_hooks(ThreadState* s, uint32_t set);
// TSC ticks per ns, over about 2 ms.
double measure_tsc_rate();

}  // namespace callprof::rt

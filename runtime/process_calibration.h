// The hooks' costs a process compensates with (docs/design.md, "Compensation"): what an
// earlier process of the recording left in its directory, the recorder's cache of earlier
// recordings once a check confirms it, or measured here (hook_calibration.h).
#pragma once

#include <stdint.h>

#include "process.h"

namespace callprof::rt {

// Reads what the recording's earlier processes (or the recorder's cache) left in `dir`; the
// TSC rate they measured, 0 when none.
double load_recording_calibration(const char* dir);

// What a process leaves for the recording's processes to come: nothing new, cached costs it
// checked (the median's, or an alternate's it switched to), or costs it measured.
enum class Learnt : uint8_t { Nothing, Checked, Switched, Measured };

// The costs of the hook `sets` (a bit per wire::kHooks*) into `costs`: what an earlier
// process of the recording measured or checked, or the recorder's cache, unchecked for now
// (check_cached_costs); the rest measured here on thread state `s` (freshly attached).
Learnt calibrate_or_inherit(ThreadState* s, uint8_t sets, wire::DumpHookCosts* costs);
// The hook sets whose costs came from the recorder's cache and were not checked yet.
uint8_t unchecked_sets();
// Checks the unchecked sets' costs on thread state `s` (fresh, as calibrate_or_inherit's),
// once: the cache's median or one of its alternates confirmed, else measured in full; their
// costs into `costs`.
Learnt check_cached_costs(ThreadState* s, wire::DumpHookCosts* costs);
// The hook sets whose costs were measured in this recording (here or by an earlier process
// of it), due a check again at the exit.
uint8_t measured_sets();
// Checks the measured sets' costs again on thread state `s` (fresh, as above), once: how far
// the check loop's cost moved since the measurement is left in the recording's directory for
// the recorder (the largest change its processes saw), busy on thread state `busy` (if any).
// The costs stay: a change says how sure the compensation is, not what the hooks cost when.
void recheck_measured_costs(ThreadState* s, ThreadState* busy);
// Leaves what this process learnt for the recording's later processes (and the recorder),
// busy on thread state `s` (if any): the write is the runtime's, not a system call of the program
// (record --syscalls). `ticks_per_ns`: the process's TSC rate.
void share_calibration(ThreadState* s, Learnt learnt, double ticks_per_ns);

}  // namespace callprof::rt

// Overhead compensation: the hooks measure their own cost per call at start-up, so the
// recorder can subtract it (SPEC §1.1). See docs/design.md, "Compensation".
#pragma once

#include "process.h"

namespace callprof::rt {

// Fills `cost` (zeros when !measure_hooks) and the TSC rate (ticks per ns).
void calibrate_hooks(HookCost* cost, double* ticks_per_ns, bool measure_hooks);

}  // namespace callprof::rt

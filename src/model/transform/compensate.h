// Overhead compensation: remove from each node's self time the cost of the profiler's own
// hooks, measured by the runtime at start-up (Process::hook_*_ns), so reported times
// describe the program as it runs without callprof (SPEC §1.1, docs/design.md).
#pragma once

#include "model/profile.h"

namespace callprof {

// Does some process carry measured hook costs (so compensation would change something)?
bool has_hook_costs(const Profile& profile);
bool has_hook_costs(const Process& process);

// Per node of each thread's tree, with its process image's constants:
//   self' = max(0, self - calls*hook_inner - child_calls*hook_outer - excluded_calls*excluded_hook)
// where calls are the node's hooked calls, Calls - min(Calls, Syscalls) (system calls
// attached as `[syscall]` leaves, see attach_syscalls.h, passed no hook), child_calls
// sums the hooked calls of every child node ([pruned] included, so a pruned subtree's
// outer costs land on its parent: the subtree's cum stays exact) and excluded_calls is
// the node's ExcludedCalls. Min/max self lose hook_inner (not below 0) and are capped at
// self' (for a node of one call both become self'). A node whose calls are all system
// calls is left alone (its time is the traced duration, moved out of its parent).
// When the thread's off-CPU time was measured, CpuNs becomes max(0, self' - OffCpuNs).
// Threads of processes without constants are left alone. Sets meta.compensated
// when anything was compensated; does nothing on a profile already marked so.
void compensate(Profile& profile);

// Compensates one tree with the given constants (exposed for tests and other tools).
void compensate_tree(CallTree& tree, const Process& constants, bool cpu_measured);

}  // namespace callprof

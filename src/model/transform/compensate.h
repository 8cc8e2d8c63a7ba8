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
//   self' = self - calls*inner(node) - Σ children calls(child)*outer(child) - excluded_calls*excluded_hook
// A node's inner/outer are its situation's: a recursive node (an ancestor is the same
// function) pays hook_recursive_ns per call, a node with hooked callees (a caller)
// hook_caller_ns, a leaf hook_inner_ns + hook_outer_ns; a situation's whole cost splits
// between callee (inner) and caller (outer) as the leaf's does, and a constant a profile
// lacks (0) falls back to the leaf's. calls are the node's hooked calls,
// Calls - min(Calls, Syscalls + FoldedCalls) (system calls attached as `[syscall]` leaves,
// see attach_syscalls.h, passed no hook; a call made after the runtime folded its function
// costs its caller folded_hook_ns instead, as an outer cost); children include [pruned] (so a pruned subtree's
// outer costs land on its parent: the subtree's cum stays exact); excluded_calls is the
// node's ExcludedCalls. Min/max self lose the node's inner cost (not below 0) and are
// capped at self' (for a node of one call both become self'). A node whose calls are all
// system calls is left alone (its time is the traced duration, moved out of its parent).
// The hooks run on the CPU, so their cost comes out of the node's on-CPU share of its self
// time (self - OffCpuNs - PreemptedNs, as split_self() in model/time_split.h splits it; all
// of self when the split was not measured), never out of its blocked time: that waiting was
// real. Time waiting for a CPU (PreemptedNs) accrues while the thread runs, so it shrinks in
// the proportion the on-CPU time does: PreemptedNs' = PreemptedNs × cpu' / cpu, where
// cpu' = max(0, cpu - cost); none is left when cpu' is 0 (also when cpu was 0), so a
// hook-heavy node on a busy machine does not keep the run-queue wait its hooks caused, and
// the wait left falls continuously to 0 as the CPU time left does. CpuNs + OffCpuNs +
// PreemptedNs = self' holds after compensation. A node whose on-CPU share is smaller than
// the estimated cost is counted as `limited` (the constants overestimate the hooks there):
// its self time is its blocked time, or 0.
// Threads of processes without constants are left alone. Sets meta.compensated
// when anything was compensated; does nothing on a profile already marked so.
struct CompensationStats {
  uint64_t nodes = 0;       // nodes compensated
  uint64_t limited = 0;     // of those, nodes whose on-CPU self was less than the estimated cost
  double unremoved_ns = 0;  // the cost those nodes could not give
  void add(const CompensationStats& o) {
    nodes += o.nodes;
    limited += o.limited;
    unremoved_ns += o.unremoved_ns;
  }
};
// With `per_thread`, each thread's own stats too (indexed as profile.threads).
CompensationStats compensate(Profile& profile, std::vector<CompensationStats>* per_thread = nullptr);

// compensate()'s work on one thread of `profile` whose process record is `process` (an
// index into profile.processes, kNoIndex for none; model/lineage.h), for threads taken as
// the profile is read: adds to `stats`, true when the tree was compensated (the caller
// then marks the profile so). Nothing on a profile already compensated.
bool compensate_thread(const Profile& profile, size_t process, Thread& thread, CompensationStats& stats);

// Compensates one tree with the given constants (exposed for tests and other tools).
CompensationStats compensate_tree(CallTree& tree, const Process& constants, bool cpu_measured);

}  // namespace callprof

// Attaching traced system calls (--syscalls, eBPF) to an exact-mode profile of the same
// run: each `[syscall] NAME` leaf of the traced trees goes under the exact-mode node of
// the instrumented function that made the call, with its time moved out of that node.
#pragma once

#include <string_view>

#include "model/profile.h"

namespace callprof {

// Attaches every `[syscall] NAME` leaf of `traced` to the thread of `exact` with the same
// pid and tid (the first one when the pair repeats).
//
// How frames match: the two profiles have separate function tables, so a traced frame is
// matched to a child of the current exact node by the function's identity: the same module
// file (path and build id) and entry address; a frame without an entry address (an inlined
// function known by name) by its name and module path. Two static functions of one name
// are two functions.
//
// Why unmatched frames are skipped: a traced path is the whole user stack (`_start`,
// libc, the `write` wrapper, functions excluded from instrumentation), while an exact
// tree holds only instrumented functions, starting at the first one (usually `main`). So
// the walk starts at the exact root and, frame by frame (outermost first), descends into
// a child of the same name when there is one and otherwise stays where it is. The leaf
// hangs under the node reached, as a child for a `[syscall] NAME` function of exact's
// table (added once). Paths that differ only in skipped frames share that leaf.
//
// Why the time is moved and not added: exact mode already measured the call's duration,
// inside the self time of the instrumented caller (the uninstrumented wrapper and the
// kernel are part of it). The leaf gets the counts (Calls, Syscalls, SyscallErrors),
// SyscallNs, Min/MaxWallNs (merged), and as WallNs the system-call time taken from the
// caller node's self WallNs, at most what that self holds (the clocks and the runs'
// attribution can disagree), so every node's cum above the caller is unchanged. When the
// thread's off-CPU time was measured, the moved time is split between CPU, off-CPU and
// waiting for a CPU (preempted) in the caller's own proportion (the calls' own split is not measured: a 100 ms blocking
// read under a caller that did nothing else is 100 % off-CPU, as it should be; short calls
// under a busy caller are mostly CPU), each at most what the caller has, and goes to the
// leaf; otherwise CpuNs/OffCpuNs/PreemptedNs are left alone.
// A leaf none of whose frames matched hangs at the exact root, which has no self time to
// take from: it keeps its whole system-call time as WallNs (no CPU/off-CPU split), so
// the thread's total grows by time exact mode did not see (e.g. before `main`).
//
// Traced threads without an exact counterpart are appended whole, their function ids
// remapped into exact's table (functions matched by name and module path, missing
// functions and modules added), with their process records when exact has none of the
// pid. Each thread's SyscallStats are merged into the exact thread's by name, and every
// `traced`'s system-call facts are copied into exact's metadata.
//
// Call it once per traced profile: attaching the same leaves twice counts them twice.
// Either order with compensate() gives the same result (up to clamping), as compensation
// does not charge hook costs for system-call leaves.
void attach_syscalls(Profile& exact, const Profile& traced);

// For calls whose exact-mode caller is known (the runtime's shadow stack, read by the
// probe: record --syscalls in exact mode), no walk is needed: their metrics are hung under
// that node as above, time moved out of its self time. `leaf` is the `[syscall] NAME`
// function of the profile's table (syscall_leaf_function adds it once).
void hang_syscall_leaf(Thread& into, NodeId parent, FunctionId leaf, const Metrics& traced);
FunctionId syscall_leaf_function(Profile& p, std::string_view syscall_name);
// A thread's per-call statistics into another's, merged by name.
void merge_syscall_stats(std::vector<SyscallStats>& into, const std::vector<SyscallStats>& from);

}  // namespace callprof

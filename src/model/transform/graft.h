// Program-wide trees from per-thread trees (SPEC §2): graft each thread under the call
// path that created it, or merge threads by their start routine. Both only move nodes, so
// every additive metric's total over the result equals its total over the threads.
#pragma once

#include <cstddef>
#include <span>

#include "model/profile.h"

namespace callprof {

// The listed threads (indices into profile.threads) in one tree: a thread whose creator
// is listed goes under the creator's node at creator_path (the longest prefix of it that
// the creator's tree has), after the creator itself was placed, so a grandchild thread
// lands inside its creator's grafted tree. The others (main threads, threads whose
// creator is not listed, one member of a creator cycle) are merged at the root.
CallTree grafted_tree(const Profile& profile, std::span<const size_t> threads);

// The listed threads with one top-level node per start routine, named "[thread] R" or
// "[N threads] R" (a function appended to profile.functions, no module, no calls), under
// which those threads' trees are merged; threads without a start routine (main threads)
// are merged at the root.
CallTree merged_by_start_routine(Profile& profile, std::span<const size_t> threads);

}  // namespace callprof

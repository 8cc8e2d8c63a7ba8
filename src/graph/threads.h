// Threads and processes as data: per-thread totals, and who created whom as a forest
// (pre-order with depths) for indented trees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/profile.h"

namespace callprof {

struct ThreadTotals {
  uint64_t calls = 0;         // all calls in the thread's tree
  uint64_t total_ns = 0;      // cum wall of the tree's top-level nodes
  uint64_t cpu_ns = 0;        // on-CPU time over the whole tree
  uint64_t offcpu_ns = 0;     // off-CPU time (blocked or sleeping) over the whole tree
  uint64_t preempted_ns = 0;  // time waiting for a CPU over the whole tree: cpu + offcpu + preempted = wall
};

// One thread's (its tree's).
ThreadTotals thread_totals(const CallTree& tree);

struct ForestEntry {
  size_t index = 0;    // into profile.threads or profile.processes
  uint32_t depth = 0;  // 0 for a root
};

// Threads in pre-order of the creation forest (links from model/lineage.h, so a creator is
// in the same process image). A root is a thread whose creator is not in the profile;
// children keep profile order. Every thread appears exactly once, even when (corrupt)
// creator links form a cycle.
std::vector<ForestEntry> thread_forest(const Profile& profile);
// The same, over the threads listed in `threads` only (ForestEntry::index still indexes
// profile.threads); a thread whose creator is not listed is a root.
std::vector<ForestEntry> thread_forest(const Profile& profile, const std::vector<size_t>& threads);
// Processes in pre-order of the parent forest (exec images under the image they replaced,
// forks under the image that forked them), with the same guarantees.
std::vector<ForestEntry> process_forest(const Profile& profile);

// The earliest start_ns over all threads (0 without threads): time origin for offsets.
int64_t earliest_thread_start_ns(const Profile& profile);

}  // namespace callprof

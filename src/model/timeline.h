// A thread's timeline (opt-in: `record --timeline`): when calls, samples and system calls
// happened, each event naming the call-tree node whose path it is. Bounded: a recorder
// keeps the most recent events and counts the older ones it had to drop.
#pragma once

#include <cstdint>
#include <vector>

#include "model/call_tree.h"

namespace callprof {

// Exact mode: a call (entry, duration). Sampled: a sample, standing for `duration_ns` of
// the thread's time (its period, or its off-CPU interval). Traced: a system call, on a
// `[syscall] NAME` node.
struct TimelineEvent {
  NodeId node = kNoNode;  // in the thread's tree (never the root)
  int64_t start_ns = 0;   // CLOCK_MONOTONIC, as the thread's other times
  uint64_t duration_ns = 0;
};

struct Timeline {
  std::vector<TimelineEvent> events;  // in any order
  uint64_t dropped = 0;               // events the recorder could not keep (ring full)
};

// How the timeline was asked for; absent from a profile recorded without one.
struct TimelineFacts {
  uint64_t min_duration_ns = 0;  // calls shorter than this were not kept (exact mode)
  uint64_t capacity = 0;         // events kept per thread at most
};

// Readers refuse a thread with more events than this (the recorders' caps are lower).
inline constexpr uint64_t kMaxTimelineEvents = uint64_t(1) << 24;
// And durations beyond this (about 146 years), so start + duration cannot overflow.
inline constexpr uint64_t kMaxTimelineDurationNs = uint64_t(1) << 62;

// The events' node ids through a tree rebuild (`node_map[old] = new`); events whose node
// has no new id (kNoNode, or out of the map) are dropped and counted.
void remap_timeline(Timeline& timeline, const std::vector<NodeId>& node_map);

}  // namespace callprof

// Turns the raw dumps of one recording (one per process image) into a self-contained
// Profile: symbolizes every address once, converts TSC ticks to nanoseconds, closes the
// frames that were still open, and links threads to the call paths that created them.
#pragma once

#include <string>
#include <vector>

#include "collect/runtime/node_samples.h"
#include "collect/runtime/raw_dump_reader.h"
#include "model/profile.h"

namespace callprof {

// Where the runtime's nodes of one thread went in the model's tree: what an exact caller
// of a system call (record --syscalls, wire/syscall_context.h) is looked up in.
struct ThreadNodes {
  size_t thread = 0;  // index in Profile::threads
  size_t dump = 0;    // index in the dumps it was built from
  uint32_t pid = 0, tid = 0;
  int64_t image_start_ns = 0;  // the process image's start: an exec reuses pid and tids
  std::vector<NodeId> node;    // runtime node id -> model node (kNoNode: none)
  std::vector<uint64_t> fn;    // runtime node id -> its function's address (0: free)
  uint32_t attach_top = 0;     // RawThread::attach_top: where the thread's calls without a node were made

  // The model node of what the runtime named (`node`, `fn`) as the top of the thread's
  // shadow stack: none (fn 0) is the attach's innermost open frame, else the root; a node
  // pruned since, or whose id went to another function, is kNoNode.
  NodeId placed(uint32_t node, uint64_t fn) const;
};

// The thread (pid, tid) of the process image that was running at `at` (CLOCK_MONOTONIC):
// the latest to start before it (an exec keeps the pid and the exec'ing thread's tid; a
// dump's image starts before any of its threads runs), else the earliest (clocks that
// disagree by a little); null when no image has that thread.
const ThreadNodes* thread_nodes_at(const std::vector<ThreadNodes>& nodes, uint32_t pid, uint32_t tid, int64_t at);

struct BuildResult {
  Profile profile;
  std::vector<ThreadNodes> thread_nodes;  // one per thread of `profile` built from a dump
  std::vector<std::string> warnings;      // symbolization problems, one line each
  uint64_t unmatched_exits = 0;           // over all threads; also in meta.exact when non-zero
  NodeSampleCounts samples;               // what became of `samples` (none given: all 0)
};

// `samples`: those taken inside the dumps' threads (node_samples.h), placed in their trees.
// The dumps are consumed: a large tree's nodes are changed in place, not copied.
BuildResult build_profile(std::vector<RawProcessDump> dumps, const std::vector<NodeSample>& samples = {});

// Ticks-to-nanoseconds rate from the dump with the longest calibration interval (all
// processes of a recording share the machine's TSC); 0 when no dump has one.
double ns_per_tick(const std::vector<RawProcessDump>& dumps);

}  // namespace callprof

// Whole-tree statistics for the summary view: size, depth, recursion, and the hottest paths.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "graph/node_quantities.h"
#include "model/call_tree.h"

namespace callprof {

struct TreeStats {
  size_t nodes = 0;              // call paths, without the virtual root
  size_t edges = 0;              // distinct caller -> callee pairs between functions (no <spontaneous>)
  size_t functions = 0;          // distinct functions
  uint64_t calls = 0;            // all calls
  uint64_t recursive_calls = 0;  // calls made while the same function was already active
  uint64_t indirect_calls = 0;   // calls made through a pointer (the rest were direct or unknown)
  size_t max_depth = 0;          // the root's children are at depth 1
  FunctionId deepest_recursion_function = kNoFunction;  // kNoFunction: no recursion
  uint32_t deepest_recursion_level = 0;
  bool has_cpu = false;                      // some node has on-CPU time
  bool has_offcpu = false;                   // some node has off-CPU time: blocked, or waiting for a CPU
  bool has_samples = false;                  // a sampled profile
  bool has_min_max = false;                  // some node measured single calls
  bool has_inlined = false;                  // some node is an inlined frame (sampled stacks)
  bool crowded = false;                      // crowded(): the wait for a CPU gets a column of its own
  std::array<bool, kMetricCount> present{};  // per metric: some node differs from the default
  // The profile measured the CPU/off-CPU split (else JSON says null, not 0).
  bool cpu_measured() const { return has_cpu || has_offcpu; }
};

// Waiting for a CPU (preempted) is at least 1 % of the wall time: the text views then show
// it in a column of its own, next to off-CPU time (below that, the column is noise).
constexpr bool crowded(uint64_t preempted_ns, uint64_t wall_ns) {
  return preempted_ns * 100 >= (wall_ns > 0 ? wall_ns : 1);
}

TreeStats tree_stats(const CallTree& tree);
TreeStats tree_stats(const CallTree& tree, std::span<const uint32_t> level);  // recursion_levels(tree)

// The `n` nodes with the largest base value of `by` (ties by node id), each naming a path
// root -> ... -> function; nodes without any are left out.
std::vector<NodeId> hottest_nodes(const CallTree& tree, size_t n, Metric by = Metric::WallNs);

}  // namespace callprof

// Per-function and per-edge aggregates of a calling context tree: the numbers every
// flat, callers/callees and graph view shows. Definitions (SPEC §1.1, docs/json.md):
// self sums base over all nodes of a function; total sums cum over its outermost
// (recursion level 0) nodes only, so recursion is never counted twice.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph/node_quantities.h"
#include "model/call_tree.h"

namespace callprof {

struct FunctionRow {
  FunctionId function = kNoFunction;
  uint64_t calls = 0;
  uint64_t self_ns = 0;
  uint64_t total_ns = 0;
  uint64_t min_self_ns = Metrics::kUnset;  // kUnset: no single call was measured
  uint64_t max_self_ns = Metrics::kUnset;  // kUnset exactly when min_self_ns is
  uint64_t cpu_ns = 0;
  uint64_t offcpu_ns = 0;     // blocked or sleeping
  uint64_t preempted_ns = 0;  // waiting for a CPU: cpu + offcpu + preempted = self where the split was measured
  uint64_t self_samples = 0;
  uint64_t total_samples = 0;
  uint64_t recursive_calls = 0;  // calls made while an outer instance was active
  uint64_t indirect_calls = 0;   // calls made through a pointer
  // Every metric: `self` merges base over all nodes (min/max by their kind), `total` sums
  // cum over the outermost nodes. The named fields above are the common ones of these.
  Metrics self;
  Metrics total;
};

// caller -> callee over every node of `callee` whose parent node runs `caller`.
struct EdgeRow {
  FunctionId caller = kNoFunction;  // kNoFunction: called from the root (<spontaneous>)
  FunctionId callee = kNoFunction;
  uint64_t calls = 0;
  uint64_t self_ns = 0;          // the callee's self time on behalf of this caller
  uint64_t total_ns = 0;         // cum of the callee's outermost instances under this caller
  uint64_t recursive_calls = 0;  // calls of the callee while it was already active
  uint32_t nodes = 0;            // the callee's nodes under this caller,
  uint32_t inlined_nodes = 0;    // of which inlined frames (sampled stacks): no call happened there
  Metrics self;                  // every metric: base merged over the nodes
  Metrics total;                 // additive metrics: cum summed over the outermost nodes
};

// One row per function present in the tree, ordered by FunctionId. Given the recursion
// levels (recursion_levels(tree)) but no cum table, each additive metric's cum is summed
// into one scratch column in turn: a million-node tree's rows then need one column of
// memory, not a table.
std::vector<FunctionRow> function_rows(const CallTree& tree);
std::vector<FunctionRow> function_rows(const CallTree& tree, std::span<const uint32_t> level);
std::vector<FunctionRow> function_rows(const CallTree& tree, const NodeQuantities& q);
// One row per distinct (caller, callee) pair, ordered by (caller, callee);
// the spontaneous edges (kNoFunction callers) come last.
std::vector<EdgeRow> edge_rows(const CallTree& tree);
std::vector<EdgeRow> edge_rows(const CallTree& tree, std::span<const uint32_t> level);
std::vector<EdgeRow> edge_rows(const CallTree& tree, const NodeQuantities& q);

// The 100 % of every percentage: cum wall of the root's children.
uint64_t grand_total_ns(const CallTree& tree);
uint64_t grand_total_ns(const CallTree& tree, const MetricTable& cum);

}  // namespace callprof

// A calling context tree: one node per distinct call path (root -> ... -> function),
// each with its base metrics. Node 0 is the virtual root. Invariant: parent < own index,
// so a forward pass visits parents first and a backward pass visits children first.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <span>
#include <vector>

#include "model/metric_table.h"
#include "model/metrics.h"

namespace callprof {

using NodeId = uint32_t;
using FunctionId = uint32_t;
inline constexpr NodeId kRootNode = 0;
inline constexpr NodeId kNoNode = UINT32_MAX;
inline constexpr FunctionId kNoFunction = UINT32_MAX;

struct CallNode {
  NodeId parent = kNoNode;
  FunctionId function = kNoFunction;
  NodeId first_child = kNoNode;
  NodeId next_sibling = kNoNode;
  // The frame was inlined into its parent's (sampled stacks, from DWARF): the function's
  // code ran inside the caller, no call happened. Part of the node's identity: a function
  // inlined at one call site and called at another of the same caller is two nodes.
  bool inlined = false;
};

class CallTree {
 public:
  CallTree();

  size_t size() const { return nodes_.size(); }
  const CallNode& node(NodeId id) const { return nodes_[id]; }
  // The node's own (self) metrics.
  MetricRow base(NodeId id) const { return base_[id]; }
  MetricRowRef base(NodeId id) { return base_[id]; }
  const MetricTable& base_table() const { return base_; }
  MetricTable& base_table() { return base_; }
  std::span<const CallNode> nodes() const { return nodes_; }

  // The child of `parent` for `function` (inlined or called), created (with empty
  // metrics) if absent.
  NodeId child(NodeId parent, FunctionId function, bool inlined = false);
  // A new last node under `parent`, without looking for an existing child of the same
  // function: for copying a tree whose paths are known to be distinct (a validated file),
  // where building the lookup index would be most of the cost. The index is rebuilt at the
  // next child() or find_child().
  NodeId append(NodeId parent, FunctionId function, bool inlined = false);
  // The child if it exists, else kNoNode. (Builds the index after append(): not safe to
  // call from two threads at once on a tree that was appended to.)
  NodeId find_child(NodeId parent, FunctionId function, bool inlined = false) const;
  // Follow (creating as needed) a path of functions from the root.
  NodeId path(std::span<const FunctionId> functions);
  // Room for `nodes` nodes in all, so building a large tree does not reallocate as it grows.
  void reserve(size_t nodes);
  // Every node's function f becomes map[f], in place: for a table renumbered one to one
  // (merging profiles), where building a new tree would only copy this one. `map` must not
  // send two functions of the tree to one. False, and the tree unchanged, when a node's
  // function is outside the map.
  bool renumber_functions(std::span<const FunctionId> map);
  // Frees the child lookup index, rebuilt at the next child() or find_child(): for a tree
  // that from now on is only walked (a merged tree: the index is a third of its memory).
  void drop_index();

  std::vector<NodeId> children(NodeId id) const;
  // Functions from the root's child down to `id` (inclusive).
  std::vector<FunctionId> path_to(NodeId id) const;
  size_t depth(NodeId id) const;

 private:
  static uint64_t key(NodeId parent, FunctionId f) { return (uint64_t(parent) << 32) | f; }
  void ensure_index() const;

  std::vector<CallNode> nodes_;
  MetricTable base_;  // row i: node i's metrics
  // Open addressing: a million-node tree is built by a million lookups here, and a
  // node-based map spent most of that time allocating and missing the cache. Built
  // lazily: a tree read from a file is mostly only walked.
  mutable absl::flat_hash_map<uint64_t, NodeId> index_;
  // Inlined nodes, apart: trees without any (exact mode) pay nothing for the flag.
  mutable absl::flat_hash_map<uint64_t, NodeId> inlined_index_;
  mutable bool indexed_ = true;
  std::vector<NodeId> last_child_;  // per node, for O(1) appends to its child list
};

// Derived per-node quantities; each returns one entry per node.
// cum: base plus every descendant's base, for additive metrics (min/max stay the node's own).
MetricTable cumulative(const CallTree& tree);
// The same for `metrics` alone (a view that reads a few totals of a large tree).
MetricTable cumulative(const CallTree& tree, std::span<const Metric> metrics);
// Recursion level: how many ancestors of the node carry the same function.
std::vector<uint32_t> recursion_levels(const CallTree& tree);

}  // namespace callprof

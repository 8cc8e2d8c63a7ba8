// The large JSON arrays (tree nodes, edges) written directly with fmt, each function name
// JSON-escaped once: these arrays can have millions of elements, and building an
// nlohmann value per element dominated the report's run time.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graph/aggregate.h"
#include "report/context.h"

namespace callprof {

// Function names as JSON string literals ("null" for kNoFunction), escaped on first use.
// Looked up once per node of the tree: by id in an array for the profile's functions.
class JsonNames {
 public:
  explicit JsonNames(const ReportContext& ctx);
  const std::string& operator()(FunctionId f) const;

 private:
  const ReportContext& ctx_;
  mutable std::vector<std::optional<std::string>> table_;       // by FunctionId
  mutable std::unordered_map<FunctionId, std::string> others_;  // kNoFunction, ids past the table
};

// The metric keys that follow a row's self/total times (docs/json.md): total_cpu_ns and
// total_offcpu_ns (null when the split was not measured), then for each of preempted_ns,
// switches, page_faults, alloc_calls, alloc_bytes, free_calls, excluded_calls and the syscall
// metrics that the tree has, the self value and its "total_" twin. With `self_cpu`, cpu_ns
// and offcpu_ns come first.
std::vector<std::pair<std::string, std::optional<uint64_t>>> metric_fields(const ReportContext& ctx, MetricView self,
                                                                           MetricView total, bool self_cpu);

// One edge object (docs/json.md, "edge").
std::string edge_json(const ReportContext& ctx, const EdgeRow& e, const JsonNames& names);

// Node levels the nested `tree` holds: JSON nests an object and an array per node, and jq
// 1.6 refuses documents deeper than 256 of its levels (an object counts twice: 3 per node;
// Python stops near 1000). A node at this depth whose subtree goes deeper gets
// "children": [] and "children_cut": N (docs/json.md, "Depth").
inline constexpr size_t kMaxJsonTreeDepth = 80;

// The subtree totals the node objects and columns read: wall, CPU, off-CPU, samples and
// the extra metrics (not calls, min or max: the analysis's cum table of every metric was a
// fifth of --json's memory on a million nodes).
MetricTable json_node_totals(const ReportContext& ctx);

// `"tree": [...]` with the nodes the filter selects, nested, one node per line.
// Iterative, so arbitrarily deep recursion cannot overflow the stack. `totals`: json_node_totals.
void write_tree_json(std::ostream& out, const ReportContext& ctx, const JsonNames& names, const MetricTable& totals);

// The shown nodes in depth-first order (children in the tree's order), each with the
// index of its parent in that order (-1: a top-level node).
struct NodeOrder {
  std::vector<NodeId> ids;
  std::vector<int64_t> parents;
};
NodeOrder node_order(const ReportContext& ctx);

// `"nodes": [...]`: the nodes of `tree`, flat, in depth-first order, each with "id" (its
// index here) and "parent" (null for a top-level node) instead of "children".
void write_flat_nodes_json(std::ostream& out, const ReportContext& ctx, const JsonNames& names,
                           const MetricTable& totals);

}  // namespace callprof

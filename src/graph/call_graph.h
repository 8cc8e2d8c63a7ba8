// The call graph as data (what `callprof graph` draws): the functions above a time threshold,
// each with its exact aggregate row, and the caller -> callee edges between them with the
// calls and time that flowed along each, paths through hidden functions folded into dashed
// edges from the nearest shown caller. docs/graph.md defines every number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "graph/aggregate.h"
#include "graph/node_quantities.h"
#include "model/call_tree.h"

namespace callprof {

// How an edge's pen width follows the time along it.
enum class EdgeWidth { Log, Linear, Uniform };
// Which share colours a node: its self time (default: the hot spots are the darkest) or its
// total (inclusive) time.
enum class HeatBasis { Total, Self };

struct CallGraphOptions {
  // The time metric ranked, drawn and coloured: WallNs (total time), CpuNs, OffCpuNs, Samples.
  Metric metric = Metric::WallNs;
  // About this many functions show: the threshold is the total of the max_nodes-th function
  // (functions tied with it show too); 0: no limit by count.
  size_t max_nodes = 30;
  // Functions whose total is below this fraction of the grand total are hidden (0: none).
  double node_fraction = 0;
  // At most this many edges (nullopt: kEdgesPerNode per shown function; 0: every edge), and
  // none below edge_fraction of the grand total; the heaviest stay, and whatever the limits
  // each function keeps its heaviest incoming edge and its recursion onto itself. (A dense
  // graph is unreadable, and Graphviz's layout time grows steeply with labelled edges.)
  std::optional<size_t> max_edges;
  double edge_fraction = 0;
  EdgeWidth edge_width = EdgeWidth::Log;
  HeatBasis heat = HeatBasis::Self;
};

inline constexpr size_t kEdgesPerNode = 3;
// Hard caps whatever the options (--nodes 0, --edges 0): Graphviz's dot layout time grows
// steeply with edges (measured, docs/graph.md: 1,460 labelled edges between 30 functions took
// over 5 minutes), so at most this many functions, and this many edges besides each
// function's heaviest caller and its recursion onto itself, reach the layout.
inline constexpr size_t kMaxGraphNodes = 150;
inline constexpr size_t kMaxGraphEdges = 300;
inline constexpr double kMinEdgeWidth = 1.0;  // pen width, points
inline constexpr double kMaxEdgeWidth = 10.0;

struct GraphNode {
  FunctionRow row;           // the function's own numbers, exactly as the analysis has them
  uint64_t self = 0;         // row.self[metric]
  uint64_t total = 0;        // row.total[metric]
  double heat = 0;           // share of the grand total (of total or self time, see HeatBasis)
  uint64_t entry_value = 0;  // of total: what no shown function called (top of the tree)
};

struct GraphEdge {
  size_t caller = 0;  // index into CallGraph::nodes
  size_t callee = 0;
  bool folded = false;  // through hidden functions (drawn dashed)
  // Closes a cycle (recursion through other functions): its callee was met above its caller
  // in a depth-first walk from the tops, heaviest edges first. The layout does not rank by it,
  // so a recursion never pulls a callee above its caller.
  bool back = false;
  uint64_t calls = 0;            // the callee's calls along this edge (recursive ones too)
  uint64_t recursive_calls = 0;  // of calls, those made while the callee was already active
  uint32_t max_recursion = 0;    // deepest recursion level of the callee along this edge
  uint64_t value = 0;            // total[metric]: the time that flowed into the callee
  Metrics total;                 // every additive metric flowed (cum of outermost instances)
  double width = kMinEdgeWidth;
  // Folded edges: the hidden functions that called the callee here, most time first (at
  // most kMaxVia), with the time that reached the callee through each; via_callers counts
  // them all.
  std::vector<std::pair<FunctionId, uint64_t>> via;
  size_t via_callers = 0;
};

inline constexpr size_t kMaxVia = 3;

struct CallGraph {
  std::vector<GraphNode> nodes;  // most total first (ties: by FunctionId)
  std::vector<GraphEdge> edges;  // by (caller, callee, folded)
  Metric metric = Metric::WallNs;
  uint64_t grand_total = 0;      // the metric over the whole tree: the 100 % of every share
  uint64_t threshold = 0;        // the smallest shown total; every hidden function is below it
  size_t functions = 0;          // functions in the tree, shown and hidden
  uint64_t max_edge_value = 0;   // the widest edge's value
  size_t hidden_edges = 0;       // edges left out by max_edges / edge_fraction
  uint64_t hidden_edge_max = 0;  // the largest value among them
  bool nodes_capped = false;     // kMaxGraphNodes left out functions the options would show
  bool edges_capped = false;     // kMaxGraphEdges left out edges the options would keep

  size_t hidden() const { return functions - nodes.size(); }
  // Index of the function's node, or SIZE_MAX when it is hidden.
  size_t find(FunctionId f) const;
};

// The graph of `tree` (with its per-node quantities and function rows, as the analysis
// computed them). Linear in the tree's nodes, plus sorting the functions and edges.
CallGraph build_call_graph(const CallTree& tree, const NodeQuantities& q, const std::vector<FunctionRow>& rows,
                           const CallGraphOptions& options);

// The pen width for `value` when the widest edge carries `max_value`: kMinEdgeWidth at 0,
// kMaxEdgeWidth at max_value. Log: min + (max - min) * log10(1 + 999 v / max) / 3, so
// each decade below the widest edge narrows it by a third of the range (v = max/111 is 4).
double edge_width(uint64_t value, uint64_t max_value, EdgeWidth mode);

}  // namespace callprof

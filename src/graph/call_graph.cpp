// Building the call graph: rank the functions by their total, keep those above the
// threshold, then one pass over the tree's nodes (parents first) carrying each node's
// nearest shown ancestor, so a path shown -> hidden... -> shown becomes one folded edge
// holding exactly the time of the callee's nodes along it.
#include "graph/call_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

namespace callprof {
namespace {

constexpr uint32_t kHidden = std::numeric_limits<uint32_t>::max();

// Row indices of the shown functions, most total first; sets the graph's threshold.
std::vector<size_t> shown_rows(const std::vector<FunctionRow>& rows, const CallGraphOptions& o, CallGraph& g) {
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) order[i] = i;
  const Metric m = o.metric;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (rows[a].total[m] != rows[b].total[m]) return rows[a].total[m] > rows[b].total[m];
    if (rows[a].calls != rows[b].calls) return rows[a].calls > rows[b].calls;
    return rows[a].function < rows[b].function;
  });
  const double floor = o.node_fraction * double(g.grand_total);
  const size_t max_nodes = o.max_nodes > 0 ? std::min(o.max_nodes, kMaxGraphNodes) : kMaxGraphNodes;
  size_t shown = 0;
  for (; shown < order.size(); ++shown) {
    const uint64_t v = rows[order[shown]].total[m];
    if (o.node_fraction > 0 && double(v) < floor) break;
    // Past the count, only functions tied with the last shown one (with some time) follow
    // it: the threshold then says truly "every hidden function is below". Never past the
    // layout's cap: 300,000 tied functions crashed Graphviz (deep recursion in libgvc).
    const bool tied = shown > 0 && v > 0 && v == rows[order[shown - 1]].total[m];
    if (shown >= kMaxGraphNodes || (shown >= max_nodes && !tied)) {
      g.nodes_capped = shown >= kMaxGraphNodes || o.max_nodes == 0 || o.max_nodes > kMaxGraphNodes;
      break;
    }
  }
  order.resize(shown);
  g.threshold = shown ? rows[order.back()].total[m] : 0;
  return order;
}

// The node index of each row (kHidden for hidden functions).
std::vector<uint32_t> node_of_rows(size_t row_count, const std::vector<size_t>& shown) {
  std::vector<uint32_t> node(row_count, kHidden);
  for (size_t k = 0; k < shown.size(); ++k) node[shown[k]] = uint32_t(k);
  return node;
}

// The graph node of a tree node's function (rows are ordered by FunctionId).
uint32_t graph_node(const std::vector<FunctionRow>& rows, const std::vector<uint32_t>& node_of_row, FunctionId f) {
  auto it = std::lower_bound(rows.begin(), rows.end(), f,
                             [](const FunctionRow& r, FunctionId id) { return r.function < id; });
  return it != rows.end() && it->function == f ? node_of_row[size_t(it - rows.begin())] : kHidden;
}

class EdgeCollector {
 public:
  explicit EdgeCollector(Metric m) : metric_(m) {}

  // Tree node `n` of a shown function, with the graph node of its nearest shown caller.
  void add(const CallTree& tree, const NodeQuantities& q, NodeId n, uint32_t caller, uint32_t callee, bool folded) {
    const uint64_t key = (uint64_t(caller) << 33) | (uint64_t(callee) << 1) | uint64_t(folded);
    auto [it, added] = index_.try_emplace(key, edges_.size());
    if (added) {
      GraphEdge& e = edges_.emplace_back();
      e.caller = caller;
      e.callee = callee;
      e.folded = folded;
      via_.emplace_back();
    }
    GraphEdge& e = edges_[it->second];
    const uint64_t calls = tree.base(n)[Metric::Calls];
    e.calls += calls;
    // A recursive re-entry adds no time, but its hidden caller is still a way in.
    if (folded) via_[it->second][tree.node(tree.node(n).parent).function] += q.level[n] == 0 ? q.cum[n][metric_] : 0;
    if (q.level[n] == 0) {
      add_sums(e.total, q.cum[n]);
    } else {
      e.recursive_calls += calls;
      e.max_recursion = std::max(e.max_recursion, q.level[n]);
    }
  }

  std::vector<GraphEdge> finish(EdgeWidth mode, uint64_t& max_value) {
    max_value = 0;
    for (size_t i = 0; i < edges_.size(); ++i) {
      GraphEdge& e = edges_[i];
      e.value = e.total[metric_];
      max_value = std::max(max_value, e.value);
      e.via.assign(via_[i].begin(), via_[i].end());
      e.via_callers = e.via.size();
      std::sort(e.via.begin(), e.via.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
      });
      if (e.via.size() > kMaxVia) e.via.resize(kMaxVia);
    }
    for (GraphEdge& e : edges_) e.width = edge_width(e.value, max_value, mode);
    std::sort(edges_.begin(), edges_.end(), [](const GraphEdge& a, const GraphEdge& b) {
      return std::tie(a.caller, a.callee, a.folded) < std::tie(b.caller, b.callee, b.folded);
    });
    return std::move(edges_);
  }

 private:
  Metric metric_;
  std::vector<GraphEdge> edges_;
  std::vector<std::unordered_map<FunctionId, uint64_t>> via_;  // per edge: hidden parent -> time
  std::unordered_map<uint64_t, size_t> index_;
};

// Leaves out the lightest edges beyond the options' limits, keeping each callee's heaviest
// incoming edge and the recursion of a function onto itself.
void trim_edges(CallGraph& g, const CallGraphOptions& o) {
  const size_t wanted = o.max_edges ? *o.max_edges : kEdgesPerNode * g.nodes.size();
  const size_t limit = wanted == 0 ? kMaxGraphEdges : std::min(wanted, kMaxGraphEdges);
  const double floor = o.edge_fraction * double(g.grand_total);
  if (g.edges.size() <= limit && o.edge_fraction <= 0) return;
  auto heavier = [&](size_t a, size_t b) {
    const GraphEdge &x = g.edges[a], &y = g.edges[b];
    if (x.value != y.value) return x.value > y.value;
    return x.calls != y.calls ? x.calls > y.calls : a < b;
  };
  std::vector<size_t> order(g.edges.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), heavier);
  std::vector<bool> keep(g.edges.size()), has_incoming(g.nodes.size());
  size_t kept = 0;
  for (size_t i : order) {  // heaviest first: the first edge into a callee is its heaviest
    const GraphEdge& e = g.edges[i];
    const bool self_recursion = e.caller == e.callee;
    const bool within = kept < limit && double(e.value) >= floor;
    keep[i] = !has_incoming[e.callee] || self_recursion || within;
    // Left out by the cap alone: the options would have kept it.
    if (!keep[i] && (wanted == 0 || kept < wanted) && double(e.value) >= floor) g.edges_capped = true;
    if (!self_recursion) has_incoming[e.callee] = true;
    kept += keep[i];
  }
  std::vector<GraphEdge> edges;
  edges.reserve(kept);
  for (size_t i = 0; i < g.edges.size(); ++i) {
    if (keep[i]) {
      edges.push_back(std::move(g.edges[i]));
    } else {
      ++g.hidden_edges;
      g.hidden_edge_max = std::max(g.hidden_edge_max, g.edges[i].value);
    }
  }
  g.edges = std::move(edges);
}

// Marks the edges that close a cycle: a depth-first walk from the tops (functions some time
// enters without a shown caller, most total first), heaviest edges first, finds each edge
// whose callee is still open above its caller. Graphviz's dot would otherwise break each
// cycle by the order of the DOT text and could rank a recursion's caller below its callee.
// Iterative: a 150-function graph is shallow, but nothing here depends on that.
void mark_back_edges(CallGraph& g) {
  std::vector<std::vector<size_t>> out(g.nodes.size());  // edge indices by caller
  for (size_t i = 0; i < g.edges.size(); ++i)
    if (g.edges[i].caller != g.edges[i].callee) out[g.edges[i].caller].push_back(i);
  for (auto& list : out)
    std::stable_sort(list.begin(), list.end(), [&](size_t a, size_t b) { return g.edges[a].value > g.edges[b].value; });
  enum : uint8_t { kUnseen, kOpen, kDone };
  std::vector<uint8_t> state(g.nodes.size(), kUnseen);
  std::vector<std::pair<size_t, size_t>> stack;  // (node, next index into out[node])
  auto walk = [&](size_t start) {
    state[start] = kOpen;
    stack.emplace_back(start, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == out[node].size()) {
        state[node] = kDone;
        stack.pop_back();
        continue;
      }
      GraphEdge& e = g.edges[out[node][next++]];
      if (state[e.callee] == kOpen) e.back = true;
      if (state[e.callee] != kUnseen) continue;
      state[e.callee] = kOpen;
      stack.emplace_back(e.callee, 0);  // invalidates node/next: not used after this
    }
  };
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (g.nodes[n].entry_value > 0 && state[n] == kUnseen) walk(n);
  for (size_t n = 0; n < g.nodes.size(); ++n)  // cycles no top reaches (their callers' edges were left out)
    if (state[n] == kUnseen) walk(n);
}

}  // namespace

size_t CallGraph::find(FunctionId f) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].row.function == f) return i;
  return SIZE_MAX;
}

double edge_width(uint64_t value, uint64_t max_value, EdgeWidth mode) {
  if (mode == EdgeWidth::Uniform) return 2.0;
  if (max_value == 0 || value == 0) return kMinEdgeWidth;
  const double share = std::min(1.0, double(value) / double(max_value));
  const double scaled = mode == EdgeWidth::Linear ? share : std::log10(1 + 999 * share) / 3;
  return kMinEdgeWidth + (kMaxEdgeWidth - kMinEdgeWidth) * scaled;
}

CallGraph build_call_graph(const CallTree& tree, const NodeQuantities& q, const std::vector<FunctionRow>& rows,
                           const CallGraphOptions& options) {
  CallGraph g;
  g.metric = options.metric;
  g.functions = rows.size();
  for (NodeId c = tree.node(kRootNode).first_child; c != kNoNode; c = tree.node(c).next_sibling)
    g.grand_total += q.cum[c][options.metric];
  const std::vector<size_t> shown = shown_rows(rows, options, g);
  for (size_t r : shown) {
    GraphNode n{.row = rows[r], .self = rows[r].self[options.metric], .total = rows[r].total[options.metric]};
    const uint64_t basis = options.heat == HeatBasis::Total ? n.total : n.self;
    n.heat = g.grand_total ? std::min(1.0, double(basis) / double(g.grand_total)) : 0;
    g.nodes.push_back(std::move(n));
  }
  const std::vector<uint32_t> node_of_row = node_of_rows(rows.size(), shown);
  // nearest[n]: the node itself when its function is shown, else its nearest shown ancestor
  // (kRootNode when there is none). Parents precede children, so one forward pass does it.
  std::vector<NodeId> nearest(tree.size(), kRootNode);
  std::vector<uint32_t> shown_node(tree.size(), kHidden);
  EdgeCollector edges(options.metric);
  for (NodeId n = 1; n < tree.size(); ++n) {
    const NodeId parent = tree.node(n).parent;
    shown_node[n] = graph_node(rows, node_of_row, tree.node(n).function);
    if (shown_node[n] == kHidden) {
      nearest[n] = nearest[parent];
      continue;
    }
    nearest[n] = n;
    const NodeId caller = nearest[parent];
    if (caller == kRootNode) {
      g.nodes[shown_node[n]].entry_value += q.cum[n][options.metric];  // no shown ancestor: level 0
      continue;
    }
    edges.add(tree, q, n, shown_node[caller], shown_node[n], caller != parent);
  }
  g.edges = edges.finish(options.edge_width, g.max_edge_value);
  trim_edges(g, options);
  mark_back_edges(g);
  return g;
}

}  // namespace callprof

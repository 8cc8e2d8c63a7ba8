// Function and edge aggregation: one pass over the nodes with their cum and recursion level.
#include "graph/aggregate.h"

#include <algorithm>
#include <unordered_map>

namespace callprof {
namespace {

// Node-independent helpers shared by both aggregations.
struct NodeView {
  const CallTree& tree;
  std::vector<Metrics> cum = cumulative(tree);
  std::vector<uint32_t> level = recursion_levels(tree);
};

uint64_t edge_key(FunctionId caller, FunctionId callee) {
  return (uint64_t(caller) << 32) | callee;
}

void add_node(FunctionRow& r, const Metrics& base, const Metrics& cum, bool outermost) {
  r.calls += base[Metric::Calls];
  r.self_ns += base[Metric::WallNs];
  r.cpu_ns += base[Metric::CpuNs];
  r.offcpu_ns += base[Metric::OffCpuNs];
  r.self_samples += base[Metric::Samples];
  if (outermost) {
    r.total_ns += cum[Metric::WallNs];
    r.total_samples += cum[Metric::Samples];
  } else {
    r.recursive_calls += base[Metric::Calls];
  }
  if (base.has_min(Metric::MinWallNs)) {
    r.min_self_ns = std::min(r.min_self_ns, base[Metric::MinWallNs]);
    // max starts "unset" (UINT64_MAX) so the first measured node replaces it.
    r.max_self_ns = r.max_self_ns == Metrics::kUnset
                        ? base[Metric::MaxWallNs]
                        : std::max(r.max_self_ns, base[Metric::MaxWallNs]);
  }
}

}  // namespace

std::vector<FunctionRow> function_rows(const CallTree& tree) {
  NodeView v{tree};
  std::vector<FunctionRow> rows;
  std::unordered_map<FunctionId, size_t> index;
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    auto [it, inserted] = index.try_emplace(n.function, rows.size());
    if (inserted) rows.push_back(FunctionRow{.function = n.function});
    add_node(rows[it->second], n.base, v.cum[i], v.level[i] == 0);
  }
  std::sort(rows.begin(), rows.end(),
            [](const FunctionRow& a, const FunctionRow& b) { return a.function < b.function; });
  return rows;
}

std::vector<EdgeRow> edge_rows(const CallTree& tree) {
  NodeView v{tree};
  std::vector<EdgeRow> rows;
  std::unordered_map<uint64_t, size_t> index;
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    const FunctionId caller = n.parent == kRootNode ? kNoFunction : tree.node(n.parent).function;
    auto [it, inserted] = index.try_emplace(edge_key(caller, n.function), rows.size());
    if (inserted) rows.push_back(EdgeRow{.caller = caller, .callee = n.function});
    EdgeRow& r = rows[it->second];
    r.calls += n.base[Metric::Calls];
    r.self_ns += n.base[Metric::WallNs];
    if (v.level[i] == 0) r.total_ns += v.cum[i][Metric::WallNs];
    else r.recursive_calls += n.base[Metric::Calls];
  }
  std::sort(rows.begin(), rows.end(), [](const EdgeRow& a, const EdgeRow& b) {
    return edge_key(a.caller, a.callee) < edge_key(b.caller, b.callee);
  });
  return rows;
}

uint64_t grand_total_ns(const CallTree& tree) {
  const std::vector<Metrics> cum = cumulative(tree);
  uint64_t total = 0;
  for (NodeId c = tree.node(kRootNode).first_child; c != kNoNode; c = tree.node(c).next_sibling)
    total += cum[c][Metric::WallNs];
  return total;
}

}  // namespace callprof

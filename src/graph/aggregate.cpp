// Function and edge aggregation: one pass over the nodes with their cum and recursion
// level. Grouping uses dense vectors and sorting rather than hash maps: on trees of
// millions of nodes hashing every node was the dominant cost.
#include "graph/aggregate.h"

#include <algorithm>

namespace callprof {
namespace {

uint64_t edge_key(FunctionId caller, FunctionId callee) { return (uint64_t(caller) << 32) | callee; }

void add_node(FunctionRow& r, const Metrics& base, const Metrics& cum, bool outermost) {
  r.calls += base[Metric::Calls];
  r.indirect_calls += base[Metric::IndirectCalls];
  r.self_ns += base[Metric::WallNs];
  r.cpu_ns += base[Metric::CpuNs];
  r.offcpu_ns += base[Metric::OffCpuNs];
  r.self_samples += base[Metric::Samples];
  r.self.merge(base);
  if (outermost) r.total.add_sums(cum);
  if (outermost) {
    r.total_ns += cum[Metric::WallNs];
    r.total_samples += cum[Metric::Samples];
  } else {
    r.recursive_calls += base[Metric::Calls];
  }
  if (base.has_min(Metric::MinWallNs)) {
    r.min_self_ns = std::min(r.min_self_ns, base[Metric::MinWallNs]);
    // max starts "unset" (UINT64_MAX) so the first measured node replaces it.
    r.max_self_ns =
        r.max_self_ns == Metrics::kUnset ? base[Metric::MaxWallNs] : std::max(r.max_self_ns, base[Metric::MaxWallNs]);
  }
}

// Nodes (without the root) ordered by a 64-bit key, so equal keys are adjacent.
template <typename KeyOf>
std::vector<std::pair<uint64_t, NodeId>> nodes_by_key(const CallTree& tree, KeyOf key_of) {
  std::vector<std::pair<uint64_t, NodeId>> keyed;
  keyed.reserve(tree.size());
  for (NodeId i = 1; i < tree.size(); ++i) keyed.push_back({key_of(i), i});
  std::sort(keyed.begin(), keyed.end());
  return keyed;
}

}  // namespace

std::vector<FunctionRow> function_rows(const CallTree& tree) { return function_rows(tree, node_quantities(tree)); }

std::vector<FunctionRow> function_rows(const CallTree& tree, const NodeQuantities& q) {
  const auto keyed = nodes_by_key(tree, [&](NodeId i) { return uint64_t(tree.node(i).function); });
  std::vector<FunctionRow> rows;
  for (const auto& [f, i] : keyed) {
    if (rows.empty() || rows.back().function != f) {
      rows.emplace_back();
      rows.back().function = FunctionId(f);
    }
    add_node(rows.back(), tree.node(i).base, q.cum[i], q.level[i] == 0);
  }
  return rows;
}

std::vector<EdgeRow> edge_rows(const CallTree& tree) { return edge_rows(tree, node_quantities(tree)); }

std::vector<EdgeRow> edge_rows(const CallTree& tree, const NodeQuantities& q) {
  auto caller_of = [&](NodeId i) {
    const NodeId parent = tree.node(i).parent;
    return parent == kRootNode ? kNoFunction : tree.node(parent).function;
  };
  const auto keyed = nodes_by_key(tree, [&](NodeId i) { return edge_key(caller_of(i), tree.node(i).function); });
  std::vector<EdgeRow> rows;
  uint64_t last = 0;
  for (const auto& [key, i] : keyed) {
    if (rows.empty() || key != last) {
      rows.emplace_back();
      rows.back().caller = caller_of(i);
      rows.back().callee = tree.node(i).function;
    }
    last = key;
    EdgeRow& r = rows.back();
    const Metrics& b = tree.node(i).base;
    r.calls += b[Metric::Calls];
    r.self_ns += b[Metric::WallNs];
    r.self.merge(b);
    if (q.level[i] == 0) {
      r.total_ns += q.cum[i][Metric::WallNs];
      r.total.add_sums(q.cum[i]);
    } else {
      r.recursive_calls += b[Metric::Calls];
    }
  }
  return rows;
}

uint64_t grand_total_ns(const CallTree& tree) { return grand_total_ns(tree, cumulative(tree)); }

uint64_t grand_total_ns(const CallTree& tree, const std::vector<Metrics>& cum) {
  uint64_t total = 0;
  for (NodeId c = tree.node(kRootNode).first_child; c != kNoNode; c = tree.node(c).next_sibling)
    total += cum[c][Metric::WallNs];
  return total;
}

}  // namespace callprof

// Function and edge aggregation: one pass over the nodes with their cum and recursion
// level, in node order. Rows are found through a small open-addressing map from function
// (or caller-callee pair) to row: it holds thousands of entries and stays in cache, where
// sorting a million nodes by key cost more than the rest of the pass.
#include "graph/aggregate.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>

namespace callprof {
namespace {

uint64_t edge_key(FunctionId caller, FunctionId callee) { return (uint64_t(caller) << 32) | callee; }

void add_node(FunctionRow& r, MetricRow base, MetricRow cum, bool outermost) {
  r.calls += base[Metric::Calls];
  r.indirect_calls += base[Metric::IndirectCalls];
  r.self_ns += base[Metric::WallNs];
  r.cpu_ns += base[Metric::CpuNs];
  r.offcpu_ns += base[Metric::OffCpuNs];
  r.self_samples += base[Metric::Samples];
  merge(r.self, base);
  if (outermost) add_sums(r.total, cum);
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

// Groups the nodes (without the root) by a 64-bit key: `add(row, node)` for each, with one
// row per distinct key made by `make(node)` at its first node. Rows come out in key order.
template <typename Row, typename KeyOf, typename Make, typename Add>
std::vector<Row> group_nodes(const CallTree& tree, KeyOf key_of, Make make, Add add) {
  absl::flat_hash_map<uint64_t, uint32_t> row_of;
  std::vector<uint64_t> keys;
  std::vector<Row> rows;
  for (NodeId i = 1; i < tree.size(); ++i) {
    const uint64_t key = key_of(i);
    auto [it, inserted] = row_of.try_emplace(key, uint32_t(rows.size()));
    if (inserted) {
      keys.push_back(key);
      rows.push_back(make(i));
    }
    add(rows[it->second], i);
  }
  // Rows are hundreds of bytes: sort their indices, move each row once.
  std::vector<uint32_t> order(rows.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<Row> out;
  out.reserve(rows.size());
  for (uint32_t i : order) out.push_back(std::move(rows[i]));
  return out;
}

}  // namespace

std::vector<FunctionRow> function_rows(const CallTree& tree) { return function_rows(tree, node_quantities(tree)); }

std::vector<FunctionRow> function_rows(const CallTree& tree, const NodeQuantities& q) {
  return group_nodes<FunctionRow>(
      tree, [&](NodeId i) { return uint64_t(tree.node(i).function); },
      [&](NodeId i) {
        FunctionRow r;
        r.function = tree.node(i).function;
        return r;
      },
      [&](FunctionRow& r, NodeId i) { add_node(r, tree.base(i), q.cum[i], q.level[i] == 0); });
}

std::vector<EdgeRow> edge_rows(const CallTree& tree) { return edge_rows(tree, node_quantities(tree)); }

std::vector<EdgeRow> edge_rows(const CallTree& tree, const NodeQuantities& q) {
  auto caller_of = [&](NodeId i) {
    const NodeId parent = tree.node(i).parent;
    return parent == kRootNode ? kNoFunction : tree.node(parent).function;
  };
  return group_nodes<EdgeRow>(
      tree, [&](NodeId i) { return edge_key(caller_of(i), tree.node(i).function); },
      [&](NodeId i) {
        EdgeRow r;
        r.caller = caller_of(i);
        r.callee = tree.node(i).function;
        return r;
      },
      [&](EdgeRow& r, NodeId i) {
        const MetricRow b = tree.base(i);
        r.calls += b[Metric::Calls];
        r.self_ns += b[Metric::WallNs];
        merge(r.self, b);
        ++r.nodes;
        r.inlined_nodes += tree.node(i).inlined;
        if (q.level[i] == 0) {
          r.total_ns += q.cum[i][Metric::WallNs];
          add_sums(r.total, q.cum[i]);
        } else {
          r.recursive_calls += b[Metric::Calls];
        }
      });
}

// Every node's self time but the root's (which is no call's).
uint64_t grand_total_ns(const CallTree& tree) { return tree.base_table().sum(Metric::WallNs, 1); }

uint64_t grand_total_ns(const CallTree& tree, const MetricTable& cum) {
  uint64_t total = 0;
  for (NodeId c = tree.node(kRootNode).first_child; c != kNoNode; c = tree.node(c).next_sibling)
    total += cum[c][Metric::WallNs];
  return total;
}

}  // namespace callprof

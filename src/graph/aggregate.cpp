// Function and edge aggregation, column by column: one pass gives every node its row
// (found through a small open-addressing map from function, or caller-callee pair, to row:
// it holds thousands of entries and stays in cache, where sorting a million nodes by key
// cost more than the rest), then one pass per metric column adds the column into a
// per-row array. Reading a node's whole metric row through the table, metric by metric,
// was most of the time on a million-node tree (bench/analysis).
#include "graph/aggregate.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>

#include "util/huge_pages.h"

namespace callprof {
namespace {

uint64_t edge_key(FunctionId caller, FunctionId callee) { return (uint64_t(caller) << 32) | callee; }

// The nodes (without the root) grouped by a 64-bit key: each node's row, rows numbered in
// key order, and each row's key.
struct Groups {
  std::vector<uint32_t> row;   // per node; row[kRootNode] is unused
  std::vector<uint64_t> keys;  // per row, ascending
};

template <typename KeyOf>
Groups group_nodes(const CallTree& tree, KeyOf key_of) {
  Groups g;
  reserve_huge(g.row, tree.size());
  g.row.resize(tree.size(), 0);
  absl::flat_hash_map<uint64_t, uint32_t> row_of;
  for (NodeId i = 1; i < tree.size(); ++i) {
    const uint64_t key = key_of(i);
    auto [it, inserted] = row_of.try_emplace(key, uint32_t(g.keys.size()));
    if (inserted) g.keys.push_back(key);
    g.row[i] = it->second;
  }
  // Renumber the rows in key order.
  std::vector<uint32_t> order(g.keys.size()), rank(g.keys.size());
  for (uint32_t r = 0; r < order.size(); ++r) order[r] = r;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return g.keys[a] < g.keys[b]; });
  std::vector<uint64_t> sorted(g.keys.size());
  for (uint32_t k = 0; k < order.size(); ++k) {
    rank[order[k]] = k;
    sorted[k] = g.keys[order[k]];
  }
  for (NodeId i = 1; i < tree.size(); ++i) g.row[i] = rank[g.row[i]];
  g.keys = std::move(sorted);
  return g;
}

// Fills each row's `self` (base merged over the row's nodes, by merge kind), `total` (cum
// summed over its outermost nodes, additive metrics) and `recursive_calls` (calls of its
// nodes below an outer instance), one column at a time. `cum_column(m)` gives the additive
// metric m's cum column.
template <typename Row, typename CumColumn>
void add_columns(std::vector<Row>& rows, const Groups& g, const CallTree& tree, std::span<const uint32_t> level,
                 CumColumn cum_column) {
  const size_t n = tree.size();
  std::vector<uint64_t> acc(rows.size());
  const MetricTable& base = tree.base_table();
  for (Metric m : base.metrics()) {
    const std::span<const uint64_t> col = base.column(m);
    std::fill(acc.begin(), acc.end(), default_value(m));
    switch (info(m).merge) {
      case MergeKind::Sum:
        for (size_t i = 1; i < n; ++i) acc[g.row[i]] += col[i];
        break;
      case MergeKind::Min:
        for (size_t i = 1; i < n; ++i) acc[g.row[i]] = std::min(acc[g.row[i]], col[i]);
        break;
      case MergeKind::Max:
        for (size_t i = 1; i < n; ++i) acc[g.row[i]] = std::max(acc[g.row[i]], col[i]);
        break;
    }
    for (size_t r = 0; r < rows.size(); ++r) rows[r].self[m] = acc[r];
  }
  for (Metric m : base.metrics()) {
    if (info(m).merge != MergeKind::Sum) continue;
    const std::span<const uint64_t> col = cum_column(m);
    std::fill(acc.begin(), acc.end(), 0);
    for (size_t i = 1; i < n; ++i)
      if (level[i] == 0) acc[g.row[i]] += col[i];
    for (size_t r = 0; r < rows.size(); ++r) rows[r].total[m] = acc[r];
  }
  if (base.has(Metric::Calls)) {
    const std::span<const uint64_t> calls = base.column(Metric::Calls);
    for (size_t i = 1; i < n; ++i)
      if (level[i] != 0) rows[g.row[i]].recursive_calls += calls[i];
  }
}

// The rows' totals from the per-node quantities.
template <typename Row>
void add_columns(std::vector<Row>& rows, const Groups& g, const CallTree& tree, const NodeQuantities& q) {
  add_columns(rows, g, tree, q.level, [&](Metric m) { return q.cum.column(m); });
}

// The rows' totals without a cum table: each additive column's cum is summed into one
// scratch column in turn.
template <typename Row>
void add_columns(std::vector<Row>& rows, const Groups& g, const CallTree& tree, std::span<const uint32_t> level) {
  std::vector<uint64_t> scratch;
  reserve_huge(scratch, tree.size());
  add_columns(rows, g, tree, level, [&](Metric m) {
    const std::span<const uint64_t> base = tree.base_table().column(m);
    scratch.assign(base.begin(), base.end());
    for (size_t i = scratch.size(); i-- > 1;) scratch[tree.node(NodeId(i)).parent] += scratch[i];
    return std::span<const uint64_t>(scratch);
  });
}

}  // namespace

namespace {

// One row per function; `add_totals(rows, groups)` fills self, total and recursive calls.
template <typename AddTotals>
std::vector<FunctionRow> function_rows_with(const CallTree& tree, AddTotals add_totals) {
  const Groups g = group_nodes(tree, [&](NodeId i) { return uint64_t(tree.node(i).function); });
  std::vector<FunctionRow> rows(g.keys.size());
  for (size_t r = 0; r < rows.size(); ++r) rows[r].function = FunctionId(g.keys[r]);
  add_totals(rows, g);
  for (FunctionRow& r : rows) {
    r.calls = r.self[Metric::Calls];
    r.indirect_calls = r.self[Metric::IndirectCalls];
    r.self_ns = r.self[Metric::WallNs];
    r.cpu_ns = r.self[Metric::CpuNs];
    r.offcpu_ns = r.self[Metric::OffCpuNs];
    r.preempted_ns = r.self[Metric::PreemptedNs];
    r.self_samples = r.self[Metric::Samples];
    r.total_ns = r.total[Metric::WallNs];
    r.total_samples = r.total[Metric::Samples];
    r.min_self_ns = r.self[Metric::MinWallNs];
  }
  // The largest single call among the nodes that measured single calls (max starts unset,
  // UINT64_MAX, so the first such node replaces it), in node order.
  const MetricTable& base = tree.base_table();
  if (base.has(Metric::MinWallNs)) {
    const std::span<const uint64_t> min = base.column(Metric::MinWallNs);
    for (NodeId i = 1; i < tree.size(); ++i) {
      if (min[i] == Metrics::kUnset) continue;
      uint64_t& max = rows[g.row[i]].max_self_ns;
      const uint64_t v = base.get(i, Metric::MaxWallNs);
      max = max == Metrics::kUnset ? v : std::max(max, v);
    }
  }
  return rows;
}

}  // namespace

std::vector<FunctionRow> function_rows(const CallTree& tree) { return function_rows(tree, recursion_levels(tree)); }

std::vector<FunctionRow> function_rows(const CallTree& tree, std::span<const uint32_t> level) {
  return function_rows_with(
      tree, [&](std::vector<FunctionRow>& rows, const Groups& g) { add_columns(rows, g, tree, level); });
}

std::vector<FunctionRow> function_rows(const CallTree& tree, const NodeQuantities& q) {
  return function_rows_with(tree,
                            [&](std::vector<FunctionRow>& rows, const Groups& g) { add_columns(rows, g, tree, q); });
}

namespace {

template <typename AddTotals>
std::vector<EdgeRow> edge_rows_with(const CallTree& tree, AddTotals add_totals) {
  auto caller_of = [&](NodeId i) {
    const NodeId parent = tree.node(i).parent;
    return parent == kRootNode ? kNoFunction : tree.node(parent).function;
  };
  const Groups g = group_nodes(tree, [&](NodeId i) { return edge_key(caller_of(i), tree.node(i).function); });
  std::vector<EdgeRow> rows(g.keys.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    rows[r].caller = FunctionId(g.keys[r] >> 32);
    rows[r].callee = FunctionId(g.keys[r]);
  }
  add_totals(rows, g);
  for (NodeId i = 1; i < tree.size(); ++i) {
    EdgeRow& r = rows[g.row[i]];
    ++r.nodes;
    r.inlined_nodes += tree.node(i).inlined;
  }
  for (EdgeRow& r : rows) {
    r.calls = r.self[Metric::Calls];
    r.self_ns = r.self[Metric::WallNs];
    r.total_ns = r.total[Metric::WallNs];
  }
  return rows;
}

}  // namespace

std::vector<EdgeRow> edge_rows(const CallTree& tree) { return edge_rows(tree, recursion_levels(tree)); }

std::vector<EdgeRow> edge_rows(const CallTree& tree, std::span<const uint32_t> level) {
  return edge_rows_with(tree, [&](std::vector<EdgeRow>& rows, const Groups& g) { add_columns(rows, g, tree, level); });
}

std::vector<EdgeRow> edge_rows(const CallTree& tree, const NodeQuantities& q) {
  return edge_rows_with(tree, [&](std::vector<EdgeRow>& rows, const Groups& g) { add_columns(rows, g, tree, q); });
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

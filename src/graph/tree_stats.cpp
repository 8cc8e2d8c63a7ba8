// Whole-tree statistics: a few passes over the nodes (parents come before children) and one
// per metric column. Distinct functions and edges are counted in small hash sets (thousands
// of entries that stay in cache), where sorting a million keys cost more than the rest.
#include "graph/tree_stats.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>

#include "util/huge_pages.h"

namespace callprof {

TreeStats tree_stats(const CallTree& tree) { return tree_stats(tree, recursion_levels(tree)); }

TreeStats tree_stats(const CallTree& tree, std::span<const uint32_t> level) {
  TreeStats s;
  const size_t n = tree.size();
  std::vector<uint32_t> depth;
  reserve_huge(depth, n);
  depth.resize(n, 0);
  absl::flat_hash_set<FunctionId> functions;
  absl::flat_hash_set<uint64_t> edges;
  for (NodeId i = 1; i < n; ++i) {
    const CallNode& node = tree.node(i);
    depth[i] = depth[node.parent] + 1;
    s.max_depth = std::max<size_t>(s.max_depth, depth[i]);
    functions.insert(node.function);
    s.has_inlined |= node.inlined;
    if (node.parent != kRootNode) edges.insert((uint64_t(tree.node(node.parent).function) << 32) | node.function);
    if (level[i] > s.deepest_recursion_level) {
      s.deepest_recursion_level = level[i];
      s.deepest_recursion_function = node.function;
    }
  }
  const MetricTable& base = tree.base_table();
  for (Metric m : base.metrics()) {
    const std::span<const uint64_t> col = base.column(m);
    const uint64_t unset = default_value(m);
    s.present[size_t(m)] = std::any_of(col.begin() + 1, col.end(), [&](uint64_t v) { return v != unset; });
  }
  s.has_cpu = s.present[size_t(Metric::CpuNs)];
  s.has_offcpu = s.present[size_t(Metric::OffCpuNs)] || s.present[size_t(Metric::PreemptedNs)];
  s.has_samples = s.present[size_t(Metric::Samples)];
  s.has_min_max = s.present[size_t(Metric::MinWallNs)];
  s.crowded = crowded(base.sum(Metric::PreemptedNs, 1), base.sum(Metric::WallNs, 1));
  s.calls = base.sum(Metric::Calls, 1);
  s.indirect_calls = base.sum(Metric::IndirectCalls, 1);
  if (base.has(Metric::Calls)) {
    const std::span<const uint64_t> calls = base.column(Metric::Calls);
    for (NodeId i = 1; i < n; ++i)
      if (level[i] > 0) s.recursive_calls += calls[i];
  }
  s.nodes = n - 1;
  s.functions = functions.size();
  s.edges = edges.size();
  return s;
}

std::vector<NodeId> hottest_nodes(const CallTree& tree, size_t n, Metric by) {
  // (wall, id) pairs sort without chasing node pointers; ties go to the lower id.
  std::vector<std::pair<uint64_t, NodeId>> hot;
  for (NodeId i = 1; i < tree.size(); ++i)
    if (const uint64_t w = tree.base(i)[by]; w > 0) hot.push_back({w, i});
  auto hotter = [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  const size_t keep = std::min(n, hot.size());
  if (keep < hot.size() / 2) {
    std::nth_element(hot.begin(), hot.begin() + ptrdiff_t(keep), hot.end(), hotter);
    hot.resize(keep);
  }
  std::sort(hot.begin(), hot.end(), hotter);
  hot.resize(keep);
  std::vector<NodeId> ids;
  ids.reserve(keep);
  for (const auto& h : hot) ids.push_back(h.second);
  return ids;
}

}  // namespace callprof

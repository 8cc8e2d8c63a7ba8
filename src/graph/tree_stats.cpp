// Whole-tree statistics: one pass over the nodes (parents come before children).
// Distinct functions and edges are counted by sorting, not hashing (see aggregate.cpp).
#include "graph/tree_stats.h"

#include <algorithm>

namespace callprof {
namespace {

size_t count_distinct(std::vector<uint64_t>& v) {
  std::sort(v.begin(), v.end());
  return size_t(std::unique(v.begin(), v.end()) - v.begin());
}

void add_flags(TreeStats& s, MetricRow b) {
  s.has_cpu |= b[Metric::CpuNs] != 0;
  s.has_offcpu |= b[Metric::OffCpuNs] != 0;
  s.has_samples |= b[Metric::Samples] != 0;
  s.has_min_max |= b.has_min(Metric::MinWallNs);
  static const Metrics kDefaults;
  for (size_t m = 0; m < kMetricCount; ++m) s.present[m] = s.present[m] || b[Metric(m)] != kDefaults[Metric(m)];
}

}  // namespace

TreeStats tree_stats(const CallTree& tree) { return tree_stats(tree, node_quantities(tree)); }

TreeStats tree_stats(const CallTree& tree, const NodeQuantities& q) {
  TreeStats s;
  std::vector<uint32_t> depth(tree.size(), 0);
  std::vector<uint64_t> functions, edges;
  functions.reserve(tree.size());
  edges.reserve(tree.size());
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    depth[i] = depth[n.parent] + 1;
    s.max_depth = std::max<size_t>(s.max_depth, depth[i]);
    functions.push_back(n.function);
    s.has_inlined |= n.inlined;
    if (n.parent != kRootNode) edges.push_back((uint64_t(tree.node(n.parent).function) << 32) | n.function);
    s.calls += tree.base(i)[Metric::Calls];
    s.indirect_calls += tree.base(i)[Metric::IndirectCalls];
    if (q.level[i] > 0) s.recursive_calls += tree.base(i)[Metric::Calls];
    if (q.level[i] > s.deepest_recursion_level) {
      s.deepest_recursion_level = q.level[i];
      s.deepest_recursion_function = n.function;
    }
    add_flags(s, tree.base(i));
  }
  s.nodes = tree.size() - 1;
  s.functions = count_distinct(functions);
  s.edges = count_distinct(edges);
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

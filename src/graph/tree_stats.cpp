// Whole-tree statistics: one pass over the nodes (parents come before children).
#include "graph/tree_stats.h"

#include <algorithm>
#include <unordered_set>

namespace callprof {

TreeStats tree_stats(const CallTree& tree) {
  TreeStats s;
  const std::vector<uint32_t> level = recursion_levels(tree);
  std::vector<size_t> depth(tree.size(), 0);
  std::unordered_set<FunctionId> functions;
  std::unordered_set<uint64_t> edges;
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    const Metrics& b = n.base;
    depth[i] = depth[n.parent] + 1;
    s.max_depth = std::max(s.max_depth, depth[i]);
    functions.insert(n.function);
    if (n.parent != kRootNode)
      edges.insert((uint64_t(tree.node(n.parent).function) << 32) | n.function);
    s.calls += b[Metric::Calls];
    if (level[i] > 0) s.recursive_calls += b[Metric::Calls];
    if (level[i] > s.deepest_recursion_level) {
      s.deepest_recursion_level = level[i];
      s.deepest_recursion_function = n.function;
    }
    s.has_cpu |= b[Metric::CpuNs] != 0;
    s.has_offcpu |= b[Metric::OffCpuNs] != 0;
    s.has_samples |= b[Metric::Samples] != 0;
    s.has_min_max |= b.has_min(Metric::MinWallNs);
  }
  s.nodes = tree.size() - 1;
  s.functions = functions.size();
  s.edges = edges.size();
  return s;
}

std::vector<NodeId> hottest_nodes(const CallTree& tree, size_t n) {
  std::vector<NodeId> ids;
  for (NodeId i = 1; i < tree.size(); ++i)
    if (tree.node(i).base[Metric::WallNs] > 0) ids.push_back(i);
  auto hotter = [&](NodeId a, NodeId b) {
    const uint64_t wa = tree.node(a).base[Metric::WallNs], wb = tree.node(b).base[Metric::WallNs];
    return wa != wb ? wa > wb : a < b;
  };
  const size_t keep = std::min(n, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + ptrdiff_t(keep), ids.end(), hotter);
  ids.resize(keep);
  return ids;
}

}  // namespace callprof

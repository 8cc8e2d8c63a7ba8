// Node selection in two linear passes, relying on parent < child for every node.
#include "graph/node_filter.h"

namespace callprof {

std::vector<bool> nodes_below_match(const CallTree& tree, const std::function<bool(FunctionId)>& matches) {
  std::vector<bool> below(tree.size(), false);
  for (NodeId i = 1; i < tree.size(); ++i) below[i] = below[tree.node(i).parent] || matches(tree.node(i).function);
  return below;
}

std::vector<bool> select_nodes(const CallTree& tree, const std::function<bool(FunctionId)>& matches) {
  const size_t n = tree.size();
  const std::vector<bool> in_subtree = nodes_below_match(tree, matches);
  std::vector<bool> leads_to_match(n, false);
  for (NodeId i = NodeId(n); i-- > 1;)
    if (in_subtree[i] || leads_to_match[i]) leads_to_match[tree.node(i).parent] = true;
  std::vector<bool> selected(n, false);
  selected[kRootNode] = true;
  for (NodeId i = 1; i < n; ++i) selected[i] = in_subtree[i] || leads_to_match[i];
  return selected;
}

}  // namespace callprof

// Which nodes of a tree to show when the user filters by function: every matching node,
// the path leading to it (its ancestors) and everything it calls (its subtree).
#pragma once

#include <functional>
#include <vector>

#include "model/call_tree.h"

namespace callprof {

// One flag per node: does the path root -> ... -> node contain a matching function?
std::vector<bool> nodes_below_match(const CallTree& tree, const std::function<bool(FunctionId)>& matches);

// One flag per node: matching, ancestor or descendant of a match; the root is always selected.
std::vector<bool> select_nodes(const CallTree& tree, const std::function<bool(FunctionId)>& matches);

}  // namespace callprof

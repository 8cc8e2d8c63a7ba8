// Calling context tree storage and the per-node quantities derived from it.
#include "model/call_tree.h"

#include <algorithm>

#include "util/huge_pages.h"

namespace callprof {

CallTree::CallTree() {
  nodes_.push_back(CallNode{});
  base_.push_back();
  last_child_.push_back(kNoNode);
}

void CallTree::ensure_index() const {
  if (indexed_) return;
  index_.clear();
  inlined_index_.clear();
  index_.reserve(nodes_.size());
  for (NodeId i = 1; i < nodes_.size(); ++i)
    (nodes_[i].inlined ? inlined_index_ : index_).try_emplace(key(nodes_[i].parent, nodes_[i].function), i);
  indexed_ = true;
}

NodeId CallTree::find_child(NodeId parent, FunctionId function, bool inlined) const {
  ensure_index();
  const auto& index = inlined ? inlined_index_ : index_;
  auto it = index.find(key(parent, function));
  return it == index.end() ? kNoNode : it->second;
}

NodeId CallTree::child(NodeId parent, FunctionId function, bool inlined) {
  ensure_index();
  auto& index = inlined ? inlined_index_ : index_;
  auto [it, inserted] = index.try_emplace(key(parent, function), NodeId(nodes_.size()));
  if (!inserted) return it->second;
  const NodeId id = append(parent, function, inlined);
  indexed_ = true;
  return id;
}

NodeId CallTree::append(NodeId parent, FunctionId function, bool inlined) {
  const NodeId id = NodeId(nodes_.size());
  indexed_ = false;
  CallNode n;
  n.parent = parent;
  n.function = function;
  n.inlined = inlined;
  nodes_.push_back(n);
  base_.push_back();
  last_child_.push_back(kNoNode);
  // Append to the sibling list so children keep their creation order.
  const NodeId last = last_child_[parent];
  if (last == kNoNode)
    nodes_[parent].first_child = id;
  else
    nodes_[last].next_sibling = id;
  last_child_[parent] = id;
  return id;
}

void CallTree::reserve(size_t nodes) {
  reserve_huge(nodes_, nodes);
  base_.reserve(nodes);
  reserve_huge(last_child_, nodes);
  if (indexed_) index_.reserve(nodes);
}

bool CallTree::renumber_functions(std::span<const FunctionId> map) {
  for (NodeId i = 1; i < nodes_.size(); ++i)
    if (nodes_[i].function >= map.size()) return false;
  for (NodeId i = 1; i < nodes_.size(); ++i) nodes_[i].function = map[nodes_[i].function];
  drop_index();  // it is keyed by function
  return true;
}

void CallTree::drop_index() {
  index_ = {};
  inlined_index_ = {};
  indexed_ = false;
}

NodeId CallTree::path(std::span<const FunctionId> functions) {
  NodeId at = kRootNode;
  for (FunctionId f : functions) at = child(at, f);
  return at;
}

std::vector<NodeId> CallTree::children(NodeId id) const {
  std::vector<NodeId> out;
  for (NodeId c = nodes_[id].first_child; c != kNoNode; c = nodes_[c].next_sibling) out.push_back(c);
  return out;
}

std::vector<FunctionId> CallTree::path_to(NodeId id) const {
  std::vector<FunctionId> out;
  for (NodeId at = id; at != kRootNode && at != kNoNode; at = nodes_[at].parent) out.push_back(nodes_[at].function);
  std::reverse(out.begin(), out.end());
  return out;
}

size_t CallTree::depth(NodeId id) const {
  size_t d = 0;
  for (NodeId at = id; at != kRootNode && at != kNoNode; at = nodes_[at].parent) ++d;
  return d;
}

MetricTable cumulative(const CallTree& tree) {
  return cumulative_rows(tree.base_table(), [&](size_t i) { return tree.node(NodeId(i)).parent; });
}

MetricTable cumulative(const CallTree& tree, std::span<const Metric> metrics) {
  return cumulative_rows(
      tree.base_table(), [&](size_t i) { return tree.node(NodeId(i)).parent; }, metrics);
}

namespace {

// Depth-first, counting the instances of each function on the current path in `active`
// (active(f) returns the function's counter).
template <typename Active>
std::vector<uint32_t> levels_by_dfs(const CallTree& tree, Active active) {
  std::vector<uint32_t> level;
  reserve_huge(level, tree.size());
  level.resize(tree.size(), 0);
  struct Visit {
    NodeId node;
    bool leaving;
  };
  std::vector<Visit> stack{{kRootNode, false}};
  while (!stack.empty()) {
    auto [id, leaving] = stack.back();
    stack.pop_back();
    const CallNode& n = tree.node(id);
    if (leaving) {
      --active(n.function);
      continue;
    }
    if (id != kRootNode) {
      level[id] = active(n.function)++;
      stack.push_back({id, true});
    }
    for (NodeId c = n.first_child; c != kNoNode; c = tree.node(c).next_sibling) stack.push_back({c, false});
  }
  return level;
}

}  // namespace

std::vector<uint32_t> recursion_levels(const CallTree& tree) {
  // Function ids index a table of a few thousand functions: one counter each in an array
  // (a hash map's look-up per visit was most of this pass); a map only for ids far larger.
  FunctionId max_id = 0;
  for (const CallNode& n : tree.nodes().subspan(1)) max_id = std::max(max_id, n.function);
  if (size_t(max_id) < 4 * tree.size() + 65536) {
    std::vector<uint32_t> active(size_t(max_id) + 1, 0);
    return levels_by_dfs(tree, [&](FunctionId f) -> uint32_t& { return active[f]; });
  }
  absl::flat_hash_map<FunctionId, uint32_t> active;
  return levels_by_dfs(tree, [&](FunctionId f) -> uint32_t& { return active[f]; });
}

}  // namespace callprof

// Callers-of: each occurrence walks its ancestors once to find the inverted node its reversed
// path ends at, deposits its metrics there, and one backward pass sums them toward the roots.
#include "model/transform/invert.h"

#include <utility>

namespace callprof {
namespace {

// The inverted tree under construction, remembering per node the last child it stepped to:
// walks up deep recursion take the same caller step over and over, and the memo turns each of
// those steps into a comparison instead of a hash lookup.
class CallerTrie {
 public:
  NodeId child(NodeId parent, FunctionId function) {
    if (parent < last_step_.size() && last_step_[parent].node != kNoNode && last_step_[parent].function == function)
      return last_step_[parent].node;
    const NodeId c = tree_.child(parent, function);
    if (last_step_.size() < tree_.size()) last_step_.resize(tree_.size());
    last_step_[parent] = {function, c};
    return c;
  }
  const CallTree& tree() const { return tree_; }
  CallTree release() { return std::move(tree_); }

 private:
  struct Step {
    FunctionId function = kNoFunction;
    NodeId node = kNoNode;
  };
  CallTree tree_;
  std::vector<Step> last_step_;
};

struct Occurrence {
  NodeId node;      // the matching node of the original tree
  NodeId endpoint;  // the inverted node its (possibly cut) reversed path ends at
};

// Reversed paths of every matching node, cut after `max_depth` callers.
std::vector<Occurrence> insert_reversed_paths(const CallTree& tree, const std::function<bool(FunctionId)>& matches,
                                              size_t max_depth, FunctionId beyond, CallerTrie& trie) {
  std::vector<Occurrence> found;
  for (NodeId x = 1; x < tree.size(); ++x) {
    if (!matches(tree.node(x).function)) continue;
    NodeId at = trie.child(kRootNode, tree.node(x).function);
    NodeId caller = tree.node(x).parent;
    for (size_t depth = 0; caller != kRootNode && depth < max_depth; ++depth, caller = tree.node(caller).parent)
      at = trie.child(at, tree.node(caller).function);
    if (caller != kRootNode && beyond != kNoFunction) trie.child(at, beyond);
    found.push_back({x, at});
  }
  return found;
}

}  // namespace

InvertedTree inverted_tree(const CallTree& tree, const std::function<bool(FunctionId)>& matches, size_t max_depth,
                           FunctionId beyond) {
  CallerTrie trie;
  const std::vector<Occurrence> found = insert_reversed_paths(tree, matches, max_depth, beyond, trie);
  InvertedTree out;
  out.self.resize(trie.tree().size());
  out.total.resize(trie.tree().size());
  const MetricTable cum = cumulative(tree);
  const std::vector<uint32_t> level = recursion_levels(tree);
  for (const Occurrence& o : found) {
    merge(out.self[o.endpoint], tree.base(o.node));
    // An inner instance's cum lies inside its outermost instance's, already counted there.
    if (level[o.node] == 0) add_sums(out.total[o.endpoint], cum[o.node]);
  }
  // An inverted node's occurrences are those ending at it plus its children's, and children
  // come after their parent, so one backward pass sums them. Root children stop the sum.
  out.tree = trie.release();
  for (NodeId n = NodeId(out.tree.size()); n-- > 1;) {
    const NodeId parent = out.tree.node(n).parent;
    if (parent == kRootNode) continue;
    out.self[parent].merge(out.self[n]);
    out.total[parent].add_sums(out.total[n]);
  }
  return out;
}

}  // namespace callprof

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

// Per inverted node, one metric over the occurrences ending there (`value(node)` of each
// occurrence that `counts`), then summed toward the roots in one backward pass (children
// come after their parent; root children stop the sum), into `out`'s column for the metric.
template <typename Value, typename Counts>
void deposit(MetricTable& out, const CallTree& inv, const std::vector<Occurrence>& found, Metric m, Value value,
             Counts counts) {
  out.set_column(m, {});
  const std::span<uint64_t> col = out.column(m);
  for (const Occurrence& o : found)
    if (counts(o)) col[o.endpoint] = merge_values(m, col[o.endpoint], value(o.node));
  for (NodeId n = NodeId(inv.size()); n-- > 1;) {
    const NodeId parent = inv.node(n).parent;
    if (parent != kRootNode) col[parent] = merge_values(m, col[parent], col[n]);
  }
}

}  // namespace

InvertedTree inverted_tree(const CallTree& tree, const std::function<bool(FunctionId)>& matches, size_t max_depth,
                           FunctionId beyond) {
  return inverted_tree(tree, cumulative(tree), recursion_levels(tree), matches, max_depth, beyond);
}

InvertedTree inverted_tree(const CallTree& tree, const MetricTable& cum, std::span<const uint32_t> level,
                           const std::function<bool(FunctionId)>& matches, size_t max_depth, FunctionId beyond) {
  CallerTrie trie;
  const std::vector<Occurrence> found = insert_reversed_paths(tree, matches, max_depth, beyond, trie);
  InvertedTree out;
  out.tree = trie.release();
  out.self.resize(out.tree.size());
  out.total.resize(out.tree.size());
  const MetricTable& base = tree.base_table();
  auto every = [](const Occurrence&) { return true; };
  // An inner instance's cum lies inside its outermost instance's, already counted there.
  auto outermost = [&](const Occurrence& o) { return level[o.node] == 0; };
  for (Metric m : base.metrics()) {
    deposit(
        out.self, out.tree, found, m, [&](NodeId x) { return base.get(x, m); }, every);
    if (info(m).merge == MergeKind::Sum)
      deposit(
          out.total, out.tree, found, m, [&](NodeId x) { return cum.get(x, m); }, outermost);
  }
  return out;
}

}  // namespace callprof

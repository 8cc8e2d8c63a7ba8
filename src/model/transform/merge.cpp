// Tree merge: walk `from` in index order (parents first) and map each node into `into`.
#include "model/transform/merge.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <tuple>

namespace callprof {

namespace {

// `into`'s children of the nodes that existed before one merge, indexed on first use. The
// trees of different threads share few paths, so most of `from`'s nodes land under a node
// the merge itself created, whose children all come from one node of `from` and so are
// distinct: appended without a look-up. Only children of older nodes are looked up, and
// only those nodes' child lists are indexed (a whole-tree index of a million nodes was
// most of the cost of merging threads).
class OlderChildren {
 public:
  explicit OlderChildren(const CallTree& into) : into_(into), older_(NodeId(into.size())) {}

  // Nodes at or past this one were made by this merge.
  NodeId older() const { return older_; }
  NodeId find(NodeId parent, FunctionId function, bool inlined) {
    if (indexed_.insert(parent).second)
      for (NodeId c = into_.node(parent).first_child; c != kNoNode; c = into_.node(c).next_sibling) add(c);
    auto it = index_.find(Key{parent, function, inlined});
    return it == index_.end() ? kNoNode : it->second;
  }
  // A node just appended under an older parent.
  void add(NodeId node) {
    const CallNode& n = into_.node(node);
    index_.try_emplace(Key{n.parent, n.function, n.inlined}, node);
  }

 private:
  using Key = std::tuple<NodeId, FunctionId, bool>;
  const CallTree& into_;
  NodeId older_;
  absl::flat_hash_set<NodeId> indexed_;
  absl::flat_hash_map<Key, NodeId> index_;
};

// Maps `from`'s nodes below `at` (its root to `at`), then merges the metrics column by
// column: one pass per metric instead of a row's worth of look-ups per node. The root's
// metrics go to `into`'s root.
std::vector<NodeId> merge_below(CallTree& into, NodeId at, const CallTree& from) {
  std::vector<NodeId> map(from.size(), kRootNode);
  OlderChildren older(into);
  for (NodeId i = 1; i < from.size(); ++i) {
    const CallNode& n = from.node(i);
    const NodeId parent = n.parent == kRootNode ? at : map[n.parent];
    if (parent >= older.older()) {
      map[i] = into.append(parent, n.function, n.inlined);
      continue;
    }
    NodeId found = older.find(parent, n.function, n.inlined);
    if (found == kNoNode) older.add(found = into.append(parent, n.function, n.inlined));
    map[i] = found;
  }
  into.base_table().merge_rows(from.base_table(), map);
  map[kRootNode] = at;
  return map;
}

}  // namespace

void merge_into(CallTree& into, const CallTree& from) { merge_below(into, kRootNode, from); }

std::vector<NodeId> merge_under(CallTree& into, NodeId at, const CallTree& from) { return merge_below(into, at, from); }

CallTree merged_tree(const Profile& profile, std::span<const uint32_t> tids) {
  CallTree out;
  for (const Thread& t : profile.threads) {
    if (!tids.empty() && std::find(tids.begin(), tids.end(), t.tid) == tids.end()) continue;
    merge_into(out, t.tree);
  }
  return out;
}

}  // namespace callprof

// Tree merge: walk `from` in index order (parents first) and map each node into `into`.
#include "model/transform/merge.h"

#include <algorithm>

namespace callprof {

namespace {

// Maps `from`'s nodes below `at` (its root to `at`), then merges the metrics column by
// column: one pass per metric instead of a row's worth of look-ups per node. The root's
// metrics go to `into`'s root.
std::vector<NodeId> merge_below(CallTree& into, NodeId at, const CallTree& from) {
  std::vector<NodeId> map(from.size(), kRootNode);
  for (NodeId i = 1; i < from.size(); ++i) {
    const CallNode& n = from.node(i);
    map[i] = into.child(n.parent == kRootNode ? at : map[n.parent], n.function, n.inlined);
  }
  into.base_table().merge_rows(from.base_table(), map);
  map[kRootNode] = at;
  return map;
}

}  // namespace

void merge_into(CallTree& into, const CallTree& from) { merge_below(into, kRootNode, from); }

std::vector<NodeId> merge_under(CallTree& into, NodeId at, const CallTree& from) {
  return merge_below(into, at, from);
}

CallTree merged_tree(const Profile& profile, std::span<const uint32_t> tids) {
  CallTree out;
  for (const Thread& t : profile.threads) {
    if (!tids.empty() && std::find(tids.begin(), tids.end(), t.tid) == tids.end()) continue;
    merge_into(out, t.tree);
  }
  return out;
}

}  // namespace callprof

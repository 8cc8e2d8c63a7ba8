// Tree merge: walk `from` in index order (parents first) and map each node into `into`.
#include "model/transform/merge.h"

#include <algorithm>

namespace callprof {

void merge_into(CallTree& into, const CallTree& from) {
  std::vector<NodeId> map(from.size(), kRootNode);
  into.base(kRootNode).merge(from.node(kRootNode).base);
  for (NodeId i = 1; i < from.size(); ++i) {
    const CallNode& n = from.node(i);
    map[i] = into.child(map[n.parent], n.function, n.inlined);
    into.base(map[i]).merge(n.base);
  }
}

std::vector<NodeId> merge_under(CallTree& into, NodeId at, const CallTree& from) {
  std::vector<NodeId> map(from.size(), at);
  into.base(kRootNode).merge(from.node(kRootNode).base);
  for (NodeId i = 1; i < from.size(); ++i) {
    const CallNode& n = from.node(i);
    map[i] = into.child(map[n.parent], n.function, n.inlined);
    into.base(map[i]).merge(n.base);
  }
  return map;
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

// Hide: one forward pass (parents first); a hidden node maps to its nearest kept ancestor's
// node, so its children land there and merge by path through CallTree::child.
#include "model/transform/hide.h"

#include <vector>

namespace callprof {
namespace {

// A hidden node's self cost moves to its caller; its Calls (and IndirectCalls, a part of them)
// count activations of a function no longer shown, so they are not the caller's.
void fold_self_into(Metrics& receiver, const Metrics& hidden) {
  for (size_t i = 0; i < kMetricCount; ++i) {
    const Metric m = static_cast<Metric>(i);
    if (kMetricInfo[i].merge != MergeKind::Sum || m == Metric::Calls || m == Metric::IndirectCalls) continue;
    receiver[m] += hidden[m];
  }
}

}  // namespace

CallTree hidden_tree(const CallTree& tree, const std::function<bool(FunctionId)>& matches) {
  CallTree out;
  out.base(kRootNode).merge(tree.node(kRootNode).base);
  // Per node of `tree`: the node of `out` that holds it (for a hidden node, its receiver).
  std::vector<NodeId> image(tree.size(), kRootNode);
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    const NodeId above = image[n.parent];
    if (matches(n.function)) {
      image[i] = above;
      fold_self_into(out.base(above), n.base);
    } else {
      image[i] = out.child(above, n.function, n.inlined);
      out.base(image[i]).merge(n.base);
    }
  }
  return out;
}

}  // namespace callprof

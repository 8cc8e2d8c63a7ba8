// Hide: one forward pass (parents first); a hidden node maps to its nearest kept ancestor's
// node, so its children land there and merge by path through CallTree::child.
#include "model/transform/hide.h"

#include <vector>

namespace callprof {
namespace {

// A hidden node's self cost moves to its caller; its Calls (and IndirectCalls, a part of them)
// count activations of a function no longer shown, so they are not the caller's.
void fold_self_into(MetricRowRef receiver, MetricRow hidden) {
  hidden.for_each([&](Metric m, uint64_t v) {
    if (info(m).merge != MergeKind::Sum || m == Metric::Calls || m == Metric::IndirectCalls || v == 0) return;
    receiver[m] += v;
  });
}

}  // namespace

CallTree hidden_tree(const CallTree& tree, const std::function<bool(FunctionId)>& matches, NodeImage* image_out) {
  CallTree out;
  out.base(kRootNode).merge(tree.base(kRootNode));
  // Per node of `tree`: the node of `out` that holds it (for a hidden node, its receiver).
  std::vector<NodeId> image(tree.size(), kRootNode);
  std::vector<bool> folded(image_out ? tree.size() : 0, false);
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    const NodeId above = image[n.parent];
    if (matches(n.function)) {
      image[i] = above;
      if (image_out) folded[i] = true;
      fold_self_into(out.base(above), tree.base(i));
    } else {
      image[i] = out.child(above, n.function, n.inlined);
      out.base(image[i]).merge(tree.base(i));
    }
  }
  if (image_out) *image_out = NodeImage{std::move(image), std::move(folded)};
  return out;
}

}  // namespace callprof

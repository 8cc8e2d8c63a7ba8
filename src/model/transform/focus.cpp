// Focus: one forward pass (parents first), mapping each node inside an outermost matching
// subtree to its path below the result's root.
#include "model/transform/focus.h"

#include <vector>

namespace callprof {

CallTree focused_tree(const CallTree& tree, const std::function<bool(FunctionId)>& matches, NodeImage* image_out) {
  CallTree out;
  // Per node of `tree`: its node in `out`, or kNoNode when it lies outside every kept subtree.
  std::vector<NodeId> image(tree.size(), kNoNode);
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    const NodeId above = image[n.parent];
    if (above != kNoNode)
      image[i] = out.child(above, n.function, n.inlined);
    else if (matches(n.function))
      image[i] = out.child(kRootNode, n.function);  // a virtual root: inlined or called, one node
    else
      continue;
    out.base(image[i]).merge(tree.base(i));
  }
  image[kRootNode] = kRootNode;
  if (image_out) *image_out = NodeImage{std::move(image), std::vector<bool>(tree.size(), false)};
  return out;
}

}  // namespace callprof

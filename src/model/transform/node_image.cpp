// Node images (see node_image.h): one forward pass, parents first, for the place each hidden
// node was called from in its nearest kept caller.
#include "model/transform/node_image.h"

namespace callprof {

NodeImage composed(const NodeImage& first, const NodeImage& second) {
  NodeImage out{first.node, first.folded};
  for (size_t i = 0; i < out.node.size(); ++i) {
    const NodeId mid = first.node[i];
    if (mid == kNoNode) continue;
    out.node[i] = mid < second.node.size() ? second.node[mid] : kNoNode;
    if (mid < second.folded.size() && second.folded[mid]) out.folded[i] = true;
  }
  return out;
}

CodeCosts relocated(const CodeCosts& code, const CallTree& tree, const NodeImage& image) {
  const size_t n = tree.size();
  const auto shown = [&](NodeId i) { return i < n && i < image.node.size() && image.node[i] != kNoNode; };
  const auto folded = [&](NodeId i) { return i < image.folded.size() && image.folded[i]; };
  const std::vector<LocationId> site = main_call_sites(code.call_sites, n);
  // Per hidden node: where its nearest kept caller called into it (its outermost hidden caller's site).
  std::vector<LocationId> entered_at(n, kNoLocation);
  for (NodeId i = 1; i < n; ++i) {
    if (!folded(i)) continue;
    const NodeId parent = tree.node(i).parent;
    entered_at[i] = folded(parent) ? entered_at[parent] : site[i];
  }
  CodeCosts out;
  for (InstructionSamples s : code.instructions) {
    if (!shown(s.node)) continue;
    if (folded(s.node)) s.location = entered_at[s.node];
    if (s.location != kNoLocation) out.instructions.push_back(s);
  }
  for (CallSite c : code.call_sites) {
    if (!shown(c.node) || folded(c.node)) continue;
    const NodeId parent = tree.node(c.node).parent;
    if (!shown(parent)) continue;
    if (folded(parent)) c.location = entered_at[parent];
    if (c.location != kNoLocation || c.calls != 0 || c.wall_ns != 0) out.call_sites.push_back(c);  // shares count
  }
  return out;
}

CodeCosts on_result(CodeCosts code, const NodeImage& image) {
  for (InstructionSamples& s : code.instructions) s.node = image.node[s.node];
  for (CallSite& c : code.call_sites) c.node = image.node[c.node];
  return code;
}

}  // namespace callprof

#include "collect/runtime/node_samples.h"

#include "collect/runtime/profile_builder.h"

namespace callprof {
namespace {

bool in_runtime_library(const std::string& path) {
  const size_t slash = path.rfind('/');
  return path.compare(slash == std::string::npos ? 0 : slash + 1, std::string::npos, "libcallprof-rt.so") == 0;
}

}  // namespace

void hang_node_samples(const std::vector<const NodeSample*>& samples, const ThreadNodes& nodes, ProcessSymbols& syms,
                       Profile& p, const NodeSampleNames& names, NodeSampleCounts& counts) {
  const FunctionId kernel = names.kernel, unknown = names.unknown;
  CallTree& tree = p.threads[nodes.thread].tree;
  for (const NodeSample* s : samples) {
    if (s->ip && in_runtime_library(syms.module_path_at(s->ip))) {
      counts.runtime += s->count;
      continue;
    }
    const bool known =
        s->fn != 0 && s->node < nodes.node.size() && nodes.fn[s->node] == s->fn && nodes.node[s->node] != kNoNode;
    (known ? counts.placed : counts.at_root) += s->count;
    NodeId at = known ? nodes.node[s->node] : kRootNode;
    const std::vector<ProcessSymbols::Frame> frames =
        s->ip ? syms.frames_at(s->ip) : std::vector<ProcessSymbols::Frame>{};
    size_t first = 0;
    // The node's own function (same id: one table): the sample is the node's, or its inlined frames'.
    if (!frames.empty() && at != kRootNode && tree.nodes()[at].function == frames[0].function) first = 1;
    for (size_t i = first; i < frames.size(); ++i) at = tree.child(at, frames[i].function, frames[i].inlined);
    if (frames.empty() && s->ip) at = tree.child(at, unknown);  // outside every module: the vDSO, JIT code
    if (s->in_kernel) at = tree.child(at, kernel);
    tree.base(at)[Metric::Samples] += s->count;
  }
}

}  // namespace callprof

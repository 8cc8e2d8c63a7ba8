#include "collect/runtime/node_samples.h"

#include "collect/runtime/profile_builder.h"
#include "symbols/elf_functions.h"

namespace callprof {
namespace {

using Frames = std::vector<ProcessSymbols::Frame>;

bool in_runtime_library(const std::string& path) {
  const size_t slash = path.rfind('/');
  return path.compare(slash == std::string::npos ? 0 : slash + 1, std::string::npos, "libcallprof-rt.so") == 0;
}

// The runtime's code, or the program's PLT stubs of the hooks (`__cyg_profile_func_enter@plt`,
// the way into the runtime): the profiler's cost, not the program's.
bool profiler_cost(const Frames& frames, const Profile& p) {
  if (frames.empty()) return false;
  const Function& f = p.functions[frames[0].function];
  return (f.module != kNoModule && in_runtime_library(p.modules[f.module].path)) ||
         f.name.starts_with("__cyg_profile_func_");
}

// Whether a sampled frame's function is the node's: the same id (one table), or, for the
// physical frame, GCC's cold part of it (elf_functions.h) in the same module, which runs on
// the function's frame after its entry hook: its own code, not a callee. Frames in a part
// are named after its function where the symbols say whose it is
// (FunctionTable::cold_part_owner); by name otherwise: C++ names demangle a part to
// "NAME [clone .cold]".
bool is_nodes_function(const Profile& p, FunctionId frame, FunctionId node, bool physical) {
  if (frame == node) return true;
  if (!physical || frame >= p.functions.size() || node >= p.functions.size()) return false;
  const Function& f = p.functions[frame];
  const Function& n = p.functions[node];
  const std::string& owner = n.linkage_name.empty() ? n.name : n.linkage_name;
  return f.module == n.module && cold_part_owner_name(f.linkage_name.empty() ? f.name : f.linkage_name) == owner;
}

// Below `at`, the frames the node does not stand for: past the node's own function among
// them (is_nodes_function), innermost, since GCC hooks a function's inlined copies too
// and the node on top may be a frame inlined into the one that ran. An inlined frame's call
// site is its caller frame's place at the same address; a called one's is not known.
NodeId below_node(const Profile& p, CallTree& tree, NodeId at, const Frames& frames, CallSiteSet& sites) {
  size_t first = 0;
  for (size_t i = frames.size(); at != kRootNode && i-- > 0;)
    if (is_nodes_function(p, frames[i].function, tree.nodes()[at].function, i == 0)) {
      first = i + 1;
      break;
    }
  for (size_t i = first; i < frames.size(); ++i) {
    at = tree.child(at, frames[i].function, frames[i].inlined);
    if (i > 0 && frames[i].inlined) sites.add(at, frames[i - 1].location);
  }
  return at;
}

}  // namespace

void hang_node_samples(const std::vector<const NodeSample*>& samples, const ThreadNodes& nodes, ProcessSymbols& syms,
                       Profile& p, const NodeSampleNames& names, NodeSampleCounts& counts) {
  Thread& thread = p.threads[nodes.thread];
  CallTree& tree = thread.tree;
  CallSiteSet sites;  // of the nodes samples add; the exact nodes have theirs
  for (const CodeCosts& c = thread.code; const CallSite& site : c.call_sites) sites.add(site);
  InstructionSums located;
  for (const NodeSample* s : samples) {
    const Frames frames = s->ip ? syms.frames_at(s->ip) : Frames{};
    if (profiler_cost(frames, p) || syms.in_runtime_stub(s->ip)) {  // a patched entry's way in
      counts.runtime += s->count;
      continue;
    }
    // Before the thread's first instrumented call: the root, or the frame it was in when an
    // attached window began; a node pruned since: the root.
    const NodeId top = nodes.placed(s->node, s->fn);
    NodeId at = below_node(p, tree, top == kNoNode ? kRootNode : top, frames, sites);
    if (frames.empty() && s->ip) at = tree.child(at, names.unknown);  // outside every module: the vDSO, JIT code
    if (s->in_kernel) at = tree.child(at, names.kernel);
    tree.base(at)[Metric::Samples] += s->count;
    if (!frames.empty() && tree.node(at).function == frames.back().function)
      located.add(at, frames.back().location, s->count, 0);
  }
  thread.code.call_sites.clear();
  sites.move_into(thread.code);
  located.move_into(thread.code);
}

}  // namespace callprof

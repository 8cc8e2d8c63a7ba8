// Samples taken inside exact-mode threads (record -F in exact mode): each says which node
// was on top of the thread's shadow stack when the CPU-clock ticked (read in the kernel,
// wire/syscall_context.h) and where the thread was. The builder places them under that very
// node, naming the sampled address through the recording's one function table: the node's
// own function is the same id, so a sample in it is the node's own, and anything else (an
// uninstrumented or folded callee, its inlined frames, the kernel) hangs below it.
#pragma once

#include <cstdint>
#include <vector>

#include "collect/runtime/process_symbols.h"
#include "model/profile.h"

namespace callprof {

struct ThreadNodes;

// Samples summed per thread, node and address.
struct NodeSample {
  uint32_t pid = 0, tid = 0;
  int64_t time_ns = 0;  // the first one's: the process image running then is the one
  uint32_t node = 0;    // the runtime's node id on top; with fn 0: none (the thread's root)
  uint64_t fn = 0;      // that node's function, which tells a reused node id from the one it was
  uint64_t ip = 0;      // user instruction pointer (0: unknown)
  bool in_kernel = false;
  uint64_t count = 0;
};

// What became of the samples (SamplingFacts in the metadata).
struct NodeSampleCounts {
  uint64_t runtime = 0;   // in callprof's runtime: the profiler's own cost, not in any tree
  uint64_t unplaced = 0;  // their thread wrote no data
};

// The leaves of samples no function names.
struct NodeSampleNames {
  FunctionId kernel;   // "[kernel]": the thread was in the kernel, entered from the frames above
  FunctionId unknown;  // "[unknown]": an address outside every module the process had loaded
};

// The samples of one thread of one image into its tree.
void hang_node_samples(const std::vector<const NodeSample*>& samples, const ThreadNodes& nodes, ProcessSymbols& syms,
                       Profile& p, const NodeSampleNames& names, NodeSampleCounts& counts);

}  // namespace callprof

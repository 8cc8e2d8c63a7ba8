// Reads one raw dump written by the in-process runtime (wire/raw_dump.h), validating every
// count and index against the file, so a damaged dump is an error and never a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "wire/raw_dump.h"

namespace callprof {

struct RawModule {
  uint64_t bias = 0, start = 0, end = 0;
  std::string path;
  std::string build_id;  // lowercase hex
};

struct RawLibCall {
  uint64_t id = 0, target = 0;
  std::string name;
};

struct RawThread {
  wire::DumpThread info{};
  // Node 0 is the root; nodes with fn 0 are free. A live node's parent is a valid index
  // but may be later than the node (after pruning) or, in a snapshot taken while the
  // thread ran, even free: such nodes are not reachable from the root and are ignored.
  std::vector<wire::DumpNode> nodes;
  std::vector<wire::DumpOpenFrame> open;       // outermost first
  std::vector<wire::DumpNode> interrupts;      // calls of signal handlers that interrupted a hook
  std::vector<wire::DumpNodeMetrics> metrics;  // per node, when the dump has node metrics
  bool has_timeline = false;                   // the dump has timelines (record --timeline)
  wire::DumpTimeline timeline_info{};
  std::vector<wire::DumpTimelineEvent> timeline;  // oldest first; nodes checked by the builder
  std::vector<wire::DumpFoldedNode> folded;       // auto-folded nodes' calls from before the fold
  std::vector<wire::DumpCallSite> sites;          // further call sites of nodes (dropped ones left out)
  std::vector<wire::DumpUnhookedCalls> unhooked;  // removed folded functions' calls through counting stubs
  // Attached: the node of the innermost frame the thread had open when the window began (0:
  // none, or not attached); what it did before its first hook in the window, it did there.
  uint32_t attach_top = 0;
};

struct RawProcessDump {
  wire::DumpHeader header{};
  uint32_t image = 0;  // 0 as forked, n after the n-th exec (from the file name)
  std::vector<std::string> argv;
  std::vector<RawModule> modules;
  std::vector<RawLibCall> libcalls;
  std::vector<wire::DumpRemovedFunction> removed;  // records being written (fn 0) left out
  std::vector<RawThread> threads;
};

Result<RawProcessDump> parse_raw_dump(std::string_view bytes, const std::string& name);
// A dump up to `read_whole_up_to` bytes is read in one go and parsed; a larger one is read
// straight into the arrays it fills, a read per field (a large tree's dump is then written
// into memory once, not first into a buffer the size of the file: manypaths' 40 MB
// recording took 160-182 ms of callprof's CPU, 188-199 that way).
Result<RawProcessDump> read_raw_dump(const std::string& path, uint64_t read_whole_up_to = 1 << 20);

}  // namespace callprof

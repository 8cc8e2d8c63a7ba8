#include "unmet_threads.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace callprof {
namespace {

bool in_dump(const RawProcessDump& dump, uint32_t tid) {
  return std::any_of(dump.threads.begin(), dump.threads.end(), [&](const RawThread& t) { return t.info.tid == tid; });
}

// When the window began: the met threads' frames open at the attach were opened then (the
// runtime's start, tsc_start, comes before its calibration and the threads' stop).
uint64_t window_start(const RawProcessDump& dump) {
  uint64_t start = UINT64_MAX;
  for (const RawThread& t : dump.threads)
    for (const wire::DumpOpenFrame& f : t.open)
      if ((f.flags & wire::kOpenFrameInherited) && f.entry_tsc >= dump.header.tsc_start)
        start = std::min(start, f.entry_tsc);
  return start == UINT64_MAX ? dump.header.tsc_start : start;
}

RawThread unmet_thread(const RawProcessDump& dump, const UnmetThread& u, uint64_t start) {
  const wire::DumpHeader& h = dump.header;
  RawThread t;
  t.info.tid = u.tid;
  t.info.creator_node = UINT32_MAX;
  t.info.start_routine = u.tid == h.pid ? 0 : u.frames.front().fn;  // its outermost hooked frame
  t.info.start_tsc = start;
  t.info.end_tsc = std::max(h.tsc_end, start);
  std::memcpy(t.info.name, u.name.data(), std::min(u.name.size(), sizeof t.info.name - 1));
  t.nodes.push_back(wire::DumpNode{0, 0, 0, 0, 0, 0, UINT64_MAX, 0, 0, 0});  // the root
  for (const wire::AttachFrame& f : u.frames) {
    const uint32_t node = uint32_t(t.nodes.size());
    t.nodes.push_back(wire::DumpNode{node - 1, 0, f.fn, f.callsite, 0, 0, UINT64_MAX, 0, 0, 0});
    t.open.push_back(wire::DumpOpenFrame{node, wire::kOpenFrameInherited, t.info.start_tsc, 0});
  }
  t.info.node_count = uint32_t(t.nodes.size());
  t.info.open_frames = uint32_t(t.open.size());
  if (h.flags & wire::kDumpHasNodeMetrics) {
    // The window's wall time the kernel did not count on a CPU was off it; of that, the
    // time runnable was spent waiting for one.
    const double span_ns = double(h.mono_end_ns) - double(h.mono_start_ns);
    const double ns_per_tick = h.tsc_end > h.tsc_start && span_ns > 0 ? span_ns / double(h.tsc_end - h.tsc_start) : 0;
    const auto wall = uint64_t(double(t.info.end_tsc - start) * ns_per_tick);
    const uint64_t off = wall > u.on_cpu_ns ? wall - u.on_cpu_ns : 0;
    t.info.offcpu_state = wire::kOffCpuMeasured;
    t.info.pending_offcpu_ns = off;  // the top frame's (profile_builder's close_open_frames)
    t.metrics.assign(t.nodes.size(), wire::DumpNodeMetrics{});
    t.metrics.back().preempted_ns = std::min(off, u.waiting_ns);
  }
  t.has_timeline = (h.flags & wire::kDumpHasTimeline) != 0;
  return t;
}

// The child of `parent` running `fn` in `t`'s tree; 0 when none.
uint32_t child_running(const RawThread& t, uint32_t parent, uint64_t fn) {
  for (uint32_t n = 1; n < t.nodes.size(); ++n)
    if (t.nodes[n].parent == parent && t.nodes[n].fn == fn) return n;
  return 0;
}

}  // namespace

void mark_attach_tops(RawProcessDump& dump, const std::vector<wire::AttachFrame>& frames) {
  std::map<uint32_t, std::vector<uint64_t>> by_thread;  // outermost first
  for (const wire::AttachFrame& f : frames) by_thread[f.tid].push_back(f.fn);
  for (RawThread& t : dump.threads) {
    auto open = by_thread.find(t.info.tid);
    if (open == by_thread.end()) continue;
    // The runtime pushed them first: their nodes come early, the scans end soon.
    uint32_t at = 0;
    for (uint64_t fn : open->second) {
      const uint32_t next = child_running(t, at, fn);
      if (next == 0) break;  // not pushed (folded, excluded, beyond the depth limit): the frame above
      at = next;
    }
    t.attach_top = at;
  }
}

size_t add_unmet_threads(RawProcessDump& dump, const std::vector<UnmetThread>& threads) {
  const uint64_t start = window_start(dump);
  size_t added = 0;
  for (const UnmetThread& u : threads)
    if (!u.frames.empty() && !in_dump(dump, u.tid)) {
      dump.threads.push_back(unmet_thread(dump, u, start));
      ++added;
    }
  return added;
}

}  // namespace callprof

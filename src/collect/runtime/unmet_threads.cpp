#include "unmet_threads.h"

#include <algorithm>
#include <cstring>

namespace callprof {
namespace {

bool in_dump(const RawProcessDump& dump, uint32_t tid) {
  return std::any_of(dump.threads.begin(), dump.threads.end(), [&](const RawThread& t) { return t.info.tid == tid; });
}

RawThread unmet_thread(const RawProcessDump& dump, const UnmetThread& u) {
  const wire::DumpHeader& h = dump.header;
  RawThread t;
  t.info.tid = u.tid;
  t.info.creator_node = UINT32_MAX;
  t.info.start_routine = u.tid == h.pid ? 0 : u.frames.front().fn;  // its outermost hooked frame
  t.info.start_tsc = h.tsc_start;
  t.info.end_tsc = std::max(h.tsc_end, h.tsc_start);
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
    const uint64_t wall = h.mono_end_ns > h.mono_start_ns ? h.mono_end_ns - h.mono_start_ns : 0;
    const uint64_t off = wall > u.on_cpu_ns ? wall - u.on_cpu_ns : 0;
    t.info.offcpu_state = wire::kOffCpuMeasured;
    t.info.pending_offcpu_ns = off;  // the top frame's (profile_builder's close_open_frames)
    t.metrics.assign(t.nodes.size(), wire::DumpNodeMetrics{});
    t.metrics.back().preempted_ns = std::min(off, u.waiting_ns);
  }
  t.has_timeline = (h.flags & wire::kDumpHasTimeline) != 0;
  return t;
}

}  // namespace

void add_unmet_threads(RawProcessDump& dump, const std::vector<UnmetThread>& threads) {
  for (const UnmetThread& u : threads)
    if (!u.frames.empty() && !in_dump(dump, u.tid)) dump.threads.push_back(unmet_thread(dump, u));
}

}  // namespace callprof

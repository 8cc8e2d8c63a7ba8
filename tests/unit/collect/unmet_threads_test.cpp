// A thread the attached runtime never met joins the window's dump with its open frames,
// their time the window's, split by the kernel's count of its time (numbers by construction).
#include "collect/runtime/unmet_threads.h"

#include <gtest/gtest.h>

#include <optional>

#include "collect/runtime/profile_builder.h"

namespace callprof {
namespace {

constexpr uint64_t kMain = 0x1000, kLoop = 0x2000;

// Two ticks per ns, a window of 100 us; thread 7 was met (a tree of its own).
RawProcessDump window(uint32_t flags) {
  RawProcessDump d;
  d.header.pid = 7;
  d.header.flags = flags;
  d.header.tsc_start = 1000;
  d.header.tsc_end = 201000;
  d.header.mono_start_ns = 500;
  d.header.mono_end_ns = 100500;
  RawThread met;
  met.info.tid = 7;
  met.info.start_tsc = 1000;
  met.info.end_tsc = 201000;
  met.nodes = {wire::DumpNode{0, 0, 0, 0, 0, 0, UINT64_MAX, 0, 0, 0},
               wire::DumpNode{0, 0, kMain, 0, 4, 80, 20, 20, 0, 0}};
  if (flags & wire::kDumpHasNodeMetrics) met.metrics.assign(2, wire::DumpNodeMetrics{});
  d.threads.push_back(met);
  return d;
}

UnmetThread unmet(uint32_t tid) {
  UnmetThread u;
  u.tid = tid;
  u.frames = {wire::AttachFrame{tid, 0, 0, kMain, 0, 0x7000}, wire::AttachFrame{tid, 0, 0, kLoop, 0x1010, 0x6f00}};
  u.on_cpu_ns = 60000;
  u.waiting_ns = 10000;
  u.name = "server";
  return u;
}

const Thread* thread(const Profile& p, uint32_t tid) {
  for (const Thread& t : p.threads)
    if (t.tid == tid) return &t;
  return nullptr;
}

NodeId child(const CallTree& tree, const Profile& p, NodeId parent, const std::string& name) {
  for (NodeId c : tree.children(parent))
    if (p.functions[tree.node(c).function].name == name) return c;
  return kNoNode;
}

// Thread 9 (main -> loop) added to `d` and built: its innermost frame's metrics.
std::optional<MetricRow> innermost_of_thread_9(RawProcessDump d) {
  add_unmet_threads(d, {unmet(9)});
  const Profile p = build_profile({std::move(d)}).profile;
  const Thread* t = thread(p, 9);
  if (!t) return std::nullopt;
  const NodeId loop = child(t->tree, p, child(t->tree, p, kRootNode, "0x1000"), "0x2000");
  if (loop == kNoNode) return std::nullopt;
  return t->tree.base(loop);
}

TEST(UnmetThreads, JoinTheDumpWithTheirFramesOpenForTheWindowAndTheKernelsSplit) {
  RawProcessDump d = window(wire::kDumpHasNodeMetrics);
  add_unmet_threads(d, {unmet(7), unmet(9)});
  ASSERT_EQ(d.threads.size(), 2u) << "thread 7 is in the dump already";
  const Profile p = build_profile({std::move(d)}).profile;
  const Thread* t = thread(p, 9);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->name, "server");
  EXPECT_FALSE(t->finished) << "running at the window's end";
  const NodeId main = child(t->tree, p, kRootNode, "0x1000");
  ASSERT_NE(main, kNoNode);
  const NodeId loop = child(t->tree, p, main, "0x2000");
  ASSERT_NE(loop, kNoNode);
  EXPECT_EQ(t->tree.base(main)[Metric::Calls], 0u) << "open before the window: no call counted";
  EXPECT_EQ(t->tree.base(loop)[Metric::Calls], 0u);
  EXPECT_EQ(t->tree.base(main)[Metric::WallNs], 0u) << "its time is its callee's";
  const auto m = t->tree.base(loop);
  EXPECT_EQ(m[Metric::WallNs], 100000u) << "the whole window";
  EXPECT_EQ(m[Metric::CpuNs], 60000u);
  EXPECT_EQ(m[Metric::PreemptedNs], 10000u);
  EXPECT_EQ(m[Metric::OffCpuNs], 30000u);
}

// The window began when the met threads' frames open at the attach were opened, after the
// runtime's start (its calibration, every thread stopped): the unmet threads' time too.
TEST(UnmetThreads, TheWindowBeginsWhenTheMetThreadsFramesWereOpened) {
  RawProcessDump d = window(wire::kDumpHasNodeMetrics);
  d.threads[0].open = {wire::DumpOpenFrame{1, wire::kOpenFrameInherited, 21000, 0}};
  const auto loop = innermost_of_thread_9(std::move(d));
  ASSERT_TRUE(loop);
  EXPECT_EQ((*loop)[Metric::WallNs], 90000u) << "from tick 21000 to 201000, two a ns";
  EXPECT_EQ((*loop)[Metric::CpuNs], 60000u);
  EXPECT_EQ((*loop)[Metric::OffCpuNs], 20000u);
}

TEST(UnmetThreads, WithoutOffCpuMetricsTheirTimeIsNotSplit) {
  const auto loop = innermost_of_thread_9(window(0));
  ASSERT_TRUE(loop);
  EXPECT_EQ((*loop)[Metric::WallNs], 100000u);
  EXPECT_EQ((*loop)[Metric::OffCpuNs], 0u);
}

TEST(UnmetThreads, AThreadWithoutFramesIsLeftOut) {
  RawProcessDump d = window(0);
  UnmetThread none = unmet(9);
  none.frames.clear();
  add_unmet_threads(d, {none});
  EXPECT_EQ(d.threads.size(), 1u);
}

}  // namespace
}  // namespace callprof

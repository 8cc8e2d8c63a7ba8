// A thread the attached runtime never met joins the window's dump with its open frames,
// their time the window's, split by the kernel's count of its time (numbers by construction);
// each thread's innermost frame open at the attach is where its samples without a node go.
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

// Thread 7 was met: its tree has main (node 1), not loop (the runtime did not push it);
// thread 9 was not: its added chain ends in loop; thread 8 had no frame open.
TEST(UnmetThreads, TheInnermostFrameOpenAtTheAttachThatTheTreeHas) {
  RawProcessDump d = window(0);
  RawThread other = d.threads[0];
  other.info.tid = 8;
  d.threads.push_back(other);
  add_unmet_threads(d, {unmet(9)});
  std::vector<wire::AttachFrame> frames = unmet(7).frames;
  for (const wire::AttachFrame& f : unmet(9).frames) frames.push_back(f);
  mark_attach_tops(d, frames);
  ASSERT_EQ(d.threads.size(), 3u);
  EXPECT_EQ(d.threads[0].attach_top, 1u) << "main: loop is not in thread 7's tree";
  EXPECT_EQ(d.threads[1].attach_top, 0u) << "thread 8 had no frame open";
  EXPECT_EQ(d.threads[2].attach_top, 2u) << "loop, at the end of thread 9's chain";
}

// A sample with no node (taken before the thread's first hook) of thread 9 lands in loop,
// not at its root; one of thread 7 in main.
TEST(UnmetThreads, SamplesWithoutANodeGoToTheFrameOpenAtTheAttach) {
  RawProcessDump d = window(0);
  add_unmet_threads(d, {unmet(9)});
  std::vector<wire::AttachFrame> frames = unmet(9).frames;
  frames.push_back(unmet(7).frames.front());
  mark_attach_tops(d, frames);
  const std::vector<NodeSample> samples = {NodeSample{7, 9, 600, 0, 0, 0, false, 5},
                                           NodeSample{7, 7, 600, 0, 0, 0, false, 3}};
  const BuildResult built = build_profile({std::move(d)}, samples);
  const Profile& p = built.profile;
  const Thread* t9 = thread(p, 9);
  ASSERT_NE(t9, nullptr);
  const NodeId loop = child(t9->tree, p, child(t9->tree, p, kRootNode, "0x1000"), "0x2000");
  ASSERT_NE(loop, kNoNode);
  EXPECT_EQ(t9->tree.base(loop)[Metric::Samples], 5u);
  EXPECT_EQ(t9->tree.base(kRootNode)[Metric::Samples], 0u);
  const Thread* t7 = thread(p, 7);
  ASSERT_NE(t7, nullptr);
  EXPECT_EQ(t7->tree.base(child(t7->tree, p, kRootNode, "0x1000"))[Metric::Samples], 3u);
}

}  // namespace
}  // namespace callprof

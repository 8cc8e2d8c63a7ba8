// ThreadProfile's timeline ring (record --timeline) with a fake clock: calls at least the
// minimum duration are kept with their entry and exit, in exit order (callees before their
// callers); the ring is bounded and counts what it overwrote; without a timeline nothing
// is kept.
#include <gtest/gtest.h>

#include <vector>

#include "program.h"

namespace callprof::rt {
namespace {

struct Kept {
  uint64_t fn, entry, exit;
  bool operator==(const Kept&) const = default;
};

std::vector<Kept> kept(const Program& prog) {
  std::vector<Kept> out;
  for (uint32_t i = 0; i < prog.p.timeline_count(); ++i) {
    const DumpTimelineEvent& e = prog.p.timeline_event(i);
    EXPECT_EQ(prog.p.nodes()[e.node].fn, e.fn) << "event " << i << " names a node of another function";
    out.push_back({e.fn, e.entry_tsc, e.exit_tsc});
  }
  return out;
}

Program with_timeline(uint32_t capacity, uint64_t min_ticks) {
  Program prog(ProgramOptions{.timeline = capacity});
  prog.p.set_limits(ThreadLimits{.timeline_min_ticks = min_ticks});
  return prog;
}

TEST(ThreadTimeline, NestedCallsAreKeptInExitOrderWithTheirTimes) {
  Program prog = with_timeline(16, 0);
  prog.call(MAIN, 0);
  prog.call(A, 10);
  prog.call(B, 12);
  prog.ret(B, 20);
  prog.ret(A, 30);
  prog.call(C, 40);
  prog.ret(C, 45);
  prog.ret(MAIN, 100);
  EXPECT_EQ(kept(prog), (std::vector<Kept>{{B, 12, 20}, {A, 10, 30}, {C, 40, 45}, {MAIN, 0, 100}}));
  EXPECT_EQ(prog.p.timeline_dropped(), 0u);
  EXPECT_EQ(prog.at({MAIN, A, B})->calls, 1u);  // the tree is built as without a timeline
}

TEST(ThreadTimeline, ShorterCallsStayOffTheTimelineButInTheTree) {
  Program prog = with_timeline(16, 10);
  prog.call(MAIN, 0);
  for (uint64_t i = 0; i < 5; ++i) {
    prog.call(A, 100 * i + 1);
    prog.ret(A, 100 * i + 10);  // 9 ticks: too short
  }
  prog.call(B, 600);
  prog.ret(B, 610);  // exactly the minimum: kept
  prog.ret(MAIN, 700);
  EXPECT_EQ(kept(prog), (std::vector<Kept>{{B, 600, 610}, {MAIN, 0, 700}}));
  EXPECT_EQ(prog.at({MAIN, A})->calls, 5u);
  EXPECT_EQ(prog.p.timeline_dropped(), 0u);
}

TEST(ThreadTimeline, FullRingOverwritesTheOldestAndCountsThem) {
  Program prog = with_timeline(4, 0);
  prog.call(MAIN, 0);
  for (uint64_t i = 0; i < 10; ++i) {
    prog.call(A, 10 * i + 1);
    prog.ret(A, 10 * i + 5);
  }
  ASSERT_EQ(prog.p.timeline_count(), 4u);
  EXPECT_EQ(prog.p.timeline_dropped(), 6u);
  EXPECT_EQ(kept(prog), (std::vector<Kept>{{A, 61, 65}, {A, 71, 75}, {A, 81, 85}, {A, 91, 95}}));
  prog.ret(MAIN, 200);
  EXPECT_EQ(prog.p.timeline_dropped(), 7u);
  EXPECT_EQ(kept(prog).back(), (Kept{MAIN, 0, 200}));
}

TEST(ThreadTimeline, WithoutATimelineNothingIsKeptWhateverTheLimits) {
  Program prog;  // no ring memory: the limit is ignored
  prog.p.set_limits(ThreadLimits{.timeline_min_ticks = 0});
  EXPECT_EQ(prog.p.timeline_min_ticks(), UINT64_MAX);
  prog.call(MAIN, 0);
  prog.call(A, 1);
  prog.ret(A, 50);
  prog.ret(MAIN, 100);
  EXPECT_EQ(prog.p.timeline_count(), 0u);
  EXPECT_EQ(prog.p.timeline_dropped(), 0u);
}

TEST(ThreadTimeline, FramesClosedAtThreadExitAreKeptAndRestartForgetsThem) {
  Program prog = with_timeline(8, 0);
  prog.call(MAIN, 0);
  prog.call(A, 5);
  prog.call(B, 6);
  prog.p.unwind_all(20);  // the thread exits inside b
  EXPECT_EQ(kept(prog), (std::vector<Kept>{{B, 6, 20}, {A, 5, 20}, {MAIN, 0, 20}}));
  prog.p.restart(40);
  EXPECT_EQ(prog.p.timeline_count(), 0u);
  EXPECT_EQ(prog.p.timeline_dropped(), 0u);
}

TEST(ThreadTimeline, CallsBelowTheRecordingMinimumAreNotOnTheTimeline) {
  Program prog(ProgramOptions{.timeline = 8});
  prog.p.set_limits(ThreadLimits{.min_ticks = 5, .timeline_min_ticks = 0});
  prog.call(MAIN, 0);
  prog.call(A, 1);
  prog.ret(A, 3);  // not recorded at all
  prog.ret(MAIN, 100);
  EXPECT_EQ(kept(prog), (std::vector<Kept>{{MAIN, 0, 100}}));
}

}  // namespace
}  // namespace callprof::rt

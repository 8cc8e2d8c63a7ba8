// Hits in, calls out: nesting, recursion, exits matched by stack pointer, and frames left
// without a probed exit (exceptions, longjmp, tail calls), on hand-made timelines.
#include "collect/probes/probe_pairing.h"

#include <gtest/gtest.h>

#include <vector>

namespace callprof::probes {
namespace {

struct Call {
  uint32_t tid, path;
  uint64_t total, self;
  bool operator==(const Call&) const = default;
};

class Recorder : public CallSink {
 public:
  // Self less the probes' part, never below 0, as ProbeCollector does for one call.
  void on_call(uint32_t tid, const OpenFrame& f, const CallTimes& t) override {
    calls.push_back({tid, f.path, t.total_ns, t.self_ns > t.probe_ns ? t.self_ns - t.probe_ns : 0});
    hits_ns.push_back(t.hits_ns);
  }
  std::vector<uint64_t> hits_ns;
  std::vector<Call> calls;
};

class PairingTest : public ::testing::Test {
 protected:
  // Opens a frame of `function` on `path` at time t with stack pointer sp, entered by a
  // hit of kind `kind`.
  const OpenFrame* enter(uint32_t tid, uint64_t t, uint64_t sp, uint32_t function, uint32_t path,
                         HitKind kind = HitKind::SingleStepped) {
    const OpenFrame* parent = pairing.enter(tid, t, sp);
    OpenFrame f{function, path, sp, 0x1000 + function, t, 0};
    f.entry_kind = kind;
    pairing.open(tid, f);
    return parent;
  }
  Recorder sink;
  ProbePairing pairing{sink};
};

TEST_F(PairingTest, NestedCallsGetTotalAndSelf) {
  EXPECT_EQ(enter(1, 100, 0x7000, 0, 10), nullptr);
  const OpenFrame* parent = nullptr;
  parent = pairing.enter(1, 110, 0x6f00);
  ASSERT_NE(parent, nullptr);
  EXPECT_EQ(parent->path, 10u);
  pairing.open(1, OpenFrame{1, 11, 0x6f00, 0x1001, 110, 0});
  pairing.exit(1, 130, 0x6f00);  // child: 20
  pairing.exit(1, 200, 0x7000);  // parent: 100, self 80
  EXPECT_EQ(sink.calls, (std::vector<Call>{{1, 11, 20, 20}, {1, 10, 100, 80}}));
  EXPECT_EQ(pairing.counts().calls, 2u);
  EXPECT_EQ(pairing.counts().unwound, 0u);
}

TEST_F(PairingTest, RecursionClosesInnermostFirst) {
  enter(1, 0, 0x7000, 0, 1);
  enter(1, 10, 0x6ff0, 0, 2);
  enter(1, 20, 0x6fe0, 0, 3);
  pairing.exit(1, 25, 0x6fe0);
  pairing.exit(1, 40, 0x6ff0);
  pairing.exit(1, 100, 0x7000);
  EXPECT_EQ(sink.calls, (std::vector<Call>{{1, 3, 5, 5}, {1, 2, 30, 25}, {1, 1, 100, 70}}));
}

TEST_F(PairingTest, ThreadsPairIndependently) {
  enter(1, 0, 0x7000, 0, 1);
  enter(2, 5, 0x7000, 0, 2);  // same stack address, another thread's stack
  pairing.exit(2, 15, 0x7000);
  pairing.exit(1, 30, 0x7000);
  EXPECT_EQ(sink.calls, (std::vector<Call>{{2, 2, 10, 10}, {1, 1, 30, 30}}));
}

// An exception thrown in the inner frame and caught in the outer one: the inner frame never
// reaches its ret; the outer frame's exit (at a higher stack pointer) closes it first.
TEST_F(PairingTest, FrameLeftByAnExceptionClosesAtTheNextHitAbove) {
  enter(1, 0, 0x7000, 0, 1);
  enter(1, 10, 0x6f00, 1, 2);
  pairing.exit(1, 50, 0x7000);
  EXPECT_EQ(sink.calls, (std::vector<Call>{{1, 2, 40, 40}, {1, 1, 50, 10}}));
  EXPECT_EQ(pairing.counts().unwound, 1u);
  EXPECT_EQ(pairing.counts().unmatched_exits, 0u);
}

// A longjmp out of two frames to main, which then calls a probed function again: the new
// entry's return address is above both, so they are closed at its time.
TEST_F(PairingTest, EntryAboveOpenFramesClosesThem) {
  enter(1, 0, 0x7000, 0, 1);
  enter(1, 10, 0x6f00, 1, 2);
  EXPECT_EQ(enter(1, 60, 0x7100, 2, 3), nullptr);
  EXPECT_EQ(pairing.counts().unwound, 2u);
  EXPECT_EQ(sink.calls, (std::vector<Call>{{1, 2, 50, 50}, {1, 1, 60, 10}}));
  EXPECT_EQ(pairing.open_frames(1), 1u);
}

// f tail-calls g (jmp): g's entry has f's stack pointer, so f ends where g begins.
TEST_F(PairingTest, TailCallEndsTheCallerAtTheCalleesEntry) {
  enter(1, 0, 0x7000, 0, 1);
  EXPECT_EQ(enter(1, 10, 0x7000, 1, 2), nullptr);
  pairing.exit(1, 30, 0x7000);
  EXPECT_EQ(sink.calls, (std::vector<Call>{{1, 1, 10, 10}, {1, 2, 20, 20}}));
}

// Calls entered before the probes were placed (attach) have exits and no entries.
TEST_F(PairingTest, ExitWithoutEntryIsCountedNotPaired) {
  pairing.exit(1, 10, 0x7000);
  enter(1, 20, 0x6000, 0, 1);
  pairing.exit(1, 30, 0x5000);  // below the open frame: a jump to a cold part, not its ret
  EXPECT_EQ(pairing.counts().unmatched_exits, 2u);
  EXPECT_TRUE(sink.calls.empty());
  EXPECT_EQ(pairing.open_frames(1), 1u);
}

TEST_F(PairingTest, OpenFramesEndWithTheirThread) {
  enter(1, 0, 0x7000, 0, 1);
  enter(1, 10, 0x6f00, 1, 2);
  enter(2, 0, 0x7000, 0, 3);
  pairing.end_thread(1, 100);
  EXPECT_EQ(sink.calls, (std::vector<Call>{{1, 2, 90, 90}, {1, 1, 100, 10}}));
  pairing.end_all(200);
  EXPECT_EQ(sink.calls.back(), (Call{2, 3, 200, 200}));
  EXPECT_EQ(pairing.counts().unfinished, 3u);
}

TEST_F(PairingTest, FramesCopyForAForkedChild) {
  enter(1, 0, 0x7000, 0, 1);
  enter(1, 10, 0x6f00, 1, 2);
  std::vector<OpenFrame> frames = pairing.frames(1);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].path, 1u);
  EXPECT_EQ(frames[1].sp, 0x6f00u);
}

}  // namespace
}  // namespace callprof::probes

namespace callprof::probes {
namespace {

HitCosts costs(uint64_t stepped, uint64_t emulated, uint64_t ret, uint64_t inside_stepped,
               uint64_t inside_stepped_return, uint64_t inside_emulated_return) {
  HitCosts c;
  c.hit_ns[size_t(HitKind::SingleStepped)] = stepped;
  c.hit_ns[size_t(HitKind::Emulated)] = emulated;
  c.hit_ns[size_t(HitKind::Return)] = ret;
  c.inside_stepped_ns = inside_stepped;
  c.inside_stepped_return_ns = inside_stepped_return;
  c.inside_emulated_return_ns = inside_emulated_return;
  return c;
}

// Hits of 5, of which 5 per call fall inside it: the child's self loses 5 (its own hits'
// inner parts), the parent's 5 for its own and 5 for each child's outer parts; never below
// zero.
TEST_F(PairingTest, CompensationSubtractsTheProbesOwnTime) {
  pairing.set_costs(costs(5, 5, 5, 5, 5, 5));
  enter(1, 100, 0x7000, 0, 10);
  enter(1, 110, 0x6f00, 1, 11);
  pairing.exit(1, 130, 0x6f00);
  enter(1, 140, 0x6f00, 1, 11);
  pairing.exit(1, 142, 0x6f00);
  pairing.exit(1, 200, 0x7000);
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[0], (Call{1, 11, 20, 15}));
  EXPECT_EQ(sink.calls[1], (Call{1, 11, 2, 0}));
  EXPECT_EQ(sink.calls[2], (Call{1, 10, 100, 78 - 15}));  // 100 - 22 in children, - 5 * (1 + 2)
}

// Probes of different costs: a call loses what falls inside it for its kinds of entry and
// exit, its parent the rest of the call's hits.
TEST_F(PairingTest, CompensationFollowsEachHitsKind) {
  // Hits: 30 single-stepped, 10 emulated, 4 a return probe's; inside a call: 30 (stepped
  // entry and ret), 28 (stepped entry, return probe), 8 (emulated entry, return probe).
  pairing.set_costs(costs(30, 10, 4, 30, 28, 8));
  enter(1, 0, 0x7000, 0, 10);                            // single-stepped entry
  enter(1, 100, 0x6f00, 1, 11, HitKind::Emulated);       // a leaf's emulated entry
  pairing.exit(1, 200, 0x6f00, HitKind::Return);         // its return probe
  enter(1, 300, 0x6f00, 2, 12, HitKind::Emulated);       // emulated entry, single-stepped ret:
  pairing.exit(1, 400, 0x6f00, HitKind::SingleStepped);  // the entry spared a single step (20)
  pairing.exit(1, 1000, 0x7000, HitKind::SingleStepped);
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[0], (Call{1, 11, 100, 100 - 8}));
  EXPECT_EQ(sink.calls[1], (Call{1, 12, 100, 100 - 10}));
  // 200 in children; 30 inside itself; outside its children: 10 + 4 - 8 and 10 + 30 - 10
  EXPECT_EQ(sink.calls[2], (Call{1, 10, 1000, 1000 - 200 - 30 - 6 - 30}));
  // Each call's own hits in all: emulated + return probe, emulated + ret, stepped + ret.
  EXPECT_EQ(sink.hits_ns, (std::vector<uint64_t>{10 + 4, 10 + 30, 30 + 30}));
}

// A frame left without an exit (an exception) loses half of what an exit would have left.
TEST_F(PairingTest, CompensationOfAFrameLeftWithoutExit) {
  pairing.set_costs(costs(30, 10, 4, 30, 28, 8));
  enter(1, 0, 0x7000, 0, 10);
  enter(1, 100, 0x6f00, 1, 11);
  pairing.exit(1, 1000, 0x7000);  // the child is unwound here
  ASSERT_EQ(sink.calls.size(), 2u);
  EXPECT_EQ(sink.calls[0], (Call{1, 11, 900, 900 - 15}));
  EXPECT_EQ(sink.calls[1], (Call{1, 10, 1000, 1000 - 900 - 30 - 15}));  // outside: 30 - 15
}

// The budget removed a function's probes while it was open, with a probed call inside it:
// both close at that time, counted as cut; the inner call's later exit matches nothing.
TEST_F(PairingTest, AStoppedFunctionsOpenFramesCloseWhenItsProbesWent) {
  enter(1, 0, 0x7000, 0, 10);
  enter(1, 100, 0x6f00, 1, 11);
  enter(1, 200, 0x6e00, 2, 12);
  enter(2, 50, 0x7000, 3, 13);
  pairing.close_function(1, 300);
  ASSERT_EQ(sink.calls.size(), 2u);
  EXPECT_EQ(sink.calls[0], (Call{1, 12, 100, 100}));
  EXPECT_EQ(sink.calls[1], (Call{1, 11, 200, 100}));
  EXPECT_EQ(pairing.counts().cut, 2u);
  EXPECT_EQ(pairing.open_frames(1), 1u);
  EXPECT_EQ(pairing.open_frames(2), 1u) << "other functions' frames stay open";
  pairing.exit(1, 350, 0x6e00);
  EXPECT_EQ(pairing.counts().unmatched_exits, 1u);
  pairing.exit(1, 400, 0x7000);
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[2], (Call{1, 10, 400, 200})) << "the outer call's time in its cut child stays the child's";
}

}  // namespace
}  // namespace callprof::probes

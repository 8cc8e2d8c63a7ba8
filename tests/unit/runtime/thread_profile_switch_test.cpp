// ThreadProfile under stack switches (coroutines) and library unloads: frames taken out
// with a suspended context and put back, and functions of a closed library moved away.
#include <gtest/gtest.h>

#include <vector>

#include "program.h"

namespace callprof::rt {
namespace {

// main -> a switches away at 10; another context's c runs 12..30 at the root; a resumes at
// 35 and returns at 40. The 25 ticks away are nobody's self time on main's path.
TEST(ThreadProfileSwitch, TimeSuspendedIsNotTheSuspendedFramesTime) {
  Program prog;
  prog.call(MAIN, 0);
  prog.call(A, 5);
  std::vector<Frame> saved(prog.p.depth());
  const ThreadProfile::Segment taken = prog.p.take_frames(saved.data());
  EXPECT_EQ(taken.depth, 2u);
  EXPECT_EQ(prog.p.depth(), 0u);
  prog.call(C, 12);  // the other context's entry function: a root
  prog.ret(C, 30);
  prog.p.put_frames(saved.data(), taken, 35 - 10);
  EXPECT_EQ(prog.p.depth(), 2u);
  prog.ret(A, 40);
  prog.ret(MAIN, 50);
  ASSERT_TRUE(prog.at({C}));
  EXPECT_EQ(prog.at({C})->calls, 1u);
  EXPECT_EQ(prog.at({C})->self_ticks, 18u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 10u);  // 5..10 and 35..40
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 15u);     // 0..5 and 40..50
  EXPECT_EQ(prog.at({MAIN, A})->calls, 1u);
  EXPECT_FALSE(prog.at({MAIN, A, C})) << "the other context's calls are not below the suspended frames";
}

TEST(ThreadProfileSwitch, AContextWithNoFramesTakesAndPutsNothing) {
  Program prog;
  std::vector<Frame> saved(1);
  const ThreadProfile::Segment taken = prog.p.take_frames(saved.data());
  EXPECT_EQ(taken.depth, 0u);
  prog.p.put_frames(saved.data(), taken, 100);
  EXPECT_EQ(prog.p.depth(), 0u);
  prog.call(A, 1);
  prog.ret(A, 2);
  EXPECT_EQ(prog.at({A})->calls, 1u);
}

// A library at [0x100, 0x200) is closed and another loaded there: calls of the same
// address before and after are two functions.
TEST(ThreadProfileSwitch, RelocatedFunctionsGetNewNodesForTheSameAddress) {
  Program prog;
  prog.call(MAIN, 0);
  for (int i = 0; i < 3; ++i) {
    prog.call(A, 1);
    prog.ret(A, 2);
  }
  constexpr uint64_t kTo = 1ull << 52;
  prog.p.relocate_functions(0x101, 0x200, kTo);  // A (0x101) and up; MAIN (0x100) stays
  for (int i = 0; i < 5; ++i) {
    prog.call(A, 3);
    prog.ret(A, 4);
  }
  prog.ret(MAIN, 10);
  ASSERT_TRUE(prog.at({MAIN, kTo}));
  EXPECT_EQ(prog.at({MAIN, kTo})->calls, 3u);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 5u);
  EXPECT_EQ(prog.at({MAIN})->calls, 1u);
}

}  // namespace
}  // namespace callprof::rt

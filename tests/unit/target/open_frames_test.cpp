// Which frames of hooked functions are open at the moment of an attach (open_frames.h):
// the rule on a function's hook call sites, for the innermost frame (the pc where the
// thread stopped) and for the frames below it (return addresses).
#include "target/inject/open_frames.h"

#include <gtest/gtest.h>

namespace callprof::inject {
namespace {

// A function at 0x1000 calls its entry hook at 0x1010 (returning to 0x1015) and its exit
// hook at 0x1080 (returning to 0x1085); an inlined copy's hooks are called at 0x1040/0x1060.
const std::vector<uint64_t> kEnter{0x1010, 0x1040};
const std::vector<uint64_t> kExit{0x1060, 0x1080};

TEST(FrameOpen, AFunctionThatCallsNoEntryHookIsNotHooked) {
  EXPECT_EQ(frame_open(0x2000, 0x2020, true, kEnter, kExit, false), FrameOpen::None);
  // Its first entry-hook call is too far from its start to be its own: an inlined copy's.
  EXPECT_EQ(frame_open(0x0f00, 0x1020, false, kEnter, kExit, false), FrameOpen::None);
}

TEST(FrameOpen, StoppedBeforeItsEntryHookRanNothingIsOpen) {
  EXPECT_EQ(frame_open(0x1000, 0x1000, true, kEnter, kExit, false), FrameOpen::None);
  EXPECT_EQ(frame_open(0x1000, 0x1010, true, kEnter, kExit, false), FrameOpen::None);  // at the call
  EXPECT_EQ(frame_open(0x1000, 0x1015, true, kEnter, kExit, false), FrameOpen::All);   // it returned
}

// GCC's `f.cold`, linked below f: only f's body jumps there, after f's entry hook ran.
TEST(FrameOpen, StoppedInTheColdPartTheFunctionIsOpen) {
  EXPECT_EQ(frame_open(0x1000, 0x0800, true, kEnter, kExit, false, true), FrameOpen::All);
  EXPECT_EQ(frame_open(0x1000, 0x0800, true, kEnter, kExit, false), FrameOpen::None) << "taken for f's start";
  EXPECT_EQ(frame_open(0x1000, 0x0800, true, kEnter, kExit, true, true), FrameOpen::AllButInnermost);
  EXPECT_EQ(frame_open(0x1000, 0x0800, false, kEnter, kExit, false, true), FrameOpen::All) << "a return address";
}

TEST(FrameOpen, StoppedAfterTheExitHookTheInnermostHasReturned) {
  EXPECT_EQ(frame_open(0x1000, 0x1088, true, kEnter, kExit, true), FrameOpen::AllButInnermost);
  EXPECT_EQ(frame_open(0x1000, 0x1080, true, kEnter, kExit, false), FrameOpen::All);  // at the call
}

TEST(FrameOpen, InsideAHookTheCallSaysWhichOne) {
  // The thread is in the hook (glibc's empty one) called just before the return address.
  EXPECT_EQ(frame_open(0x1000, 0x1015, false, kEnter, kExit, false), FrameOpen::All);  // entered
  EXPECT_EQ(frame_open(0x1000, 0x1045, false, kEnter, kExit, false), FrameOpen::All);  // the inlined copy entered
  EXPECT_EQ(frame_open(0x1000, 0x1065, false, kEnter, kExit, false), FrameOpen::AllButInnermost);
  EXPECT_EQ(frame_open(0x1000, 0x1085, false, kEnter, kExit, false), FrameOpen::AllButInnermost);
  EXPECT_EQ(frame_open(0x1000, 0x1030, false, kEnter, kExit, false), FrameOpen::All);  // another call
}

}  // namespace
}  // namespace callprof::inject

// Typed recording facts (model/recording_mode.h): modes and unwinding choices by value, with
// the stable names the file and JSON keep; a merged profile's several modes; names this build
// does not know kept as text (modes) or read as unknown (unwinding).
#include "model/recording_mode.h"

#include <gtest/gtest.h>

namespace callprof {
namespace {

TEST(RecordingModes, OneModeByValueAndName) {
  const RecordingModes exact = RecordingMode::Exact;
  EXPECT_TRUE(exact.only(RecordingMode::Exact));
  EXPECT_TRUE(exact.has(RecordingMode::Exact));
  EXPECT_FALSE(exact.has(RecordingMode::Sample));
  EXPECT_EQ(exact.text(), "exact");
  EXPECT_EQ(RecordingModes::from_text("exact"), exact);
  for (RecordingMode m : kRecordingModes) EXPECT_EQ(parse_recording_mode(recording_mode_name(m)), m);
}

TEST(RecordingModes, AMergeOfModesHasEach) {
  const RecordingModes merged = RecordingModes::from_text("exact+sample");
  EXPECT_TRUE(merged.has(RecordingMode::Exact));
  EXPECT_TRUE(merged.has(RecordingMode::Sample));
  EXPECT_FALSE(merged.only(RecordingMode::Sample));
  EXPECT_FALSE(merged.has(RecordingMode::Probe));
  EXPECT_EQ(merged.text(), "exact+sample");
}

TEST(RecordingModes, UnknownNamesStayAsText) {
  const RecordingModes future = RecordingModes::from_text("gpu");
  EXPECT_FALSE(future.empty());
  EXPECT_EQ(future.text(), "gpu");
  for (RecordingMode m : kRecordingModes) EXPECT_FALSE(future.has(m));
  EXPECT_TRUE(RecordingModes().empty());
  EXPECT_FALSE(RecordingModes::from_text("").has(RecordingMode::Exact));
}

TEST(Unwinding, NamesRoundTripAndUnknownIsUnknown) {
  for (Unwinding u : {Unwinding::FramePointers, Unwinding::Dwarf, Unwinding::ShadowStack, Unwinding::Mixed})
    EXPECT_EQ(parse_unwinding(unwinding_name(u)), u);
  EXPECT_EQ(unwinding_name(Unwinding::ShadowStack), "shadow-stack");
  EXPECT_EQ(parse_unwinding("lbr"), Unwinding::Unknown);
  EXPECT_EQ(parse_unwinding(""), Unwinding::Unknown);
}

}  // namespace
}  // namespace callprof

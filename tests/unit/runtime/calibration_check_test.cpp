// The check of a cached calibration: which rounds count, and what confirms the cache.
#include "calibration_check.h"

#include <gtest/gtest.h>

namespace callprof::rt {
namespace {

TEST(CalibrationCheck, TheLowestRoundCounts) {
  const uint64_t rounds[] = {31, 29, 30};
  EXPECT_EQ(check_value(rounds, 3), 29u);
}

TEST(CalibrationCheck, ARoundInterruptedInItsPlainLoopSaysNothing) {
  const uint64_t rounds[] = {31, 0, 30};  // the plain loop as long as the hooked one
  EXPECT_EQ(check_value(rounds, 3), 30u);
  const uint64_t none[] = {0, 0, 0};
  EXPECT_EQ(check_value(none, 3), 0u) << "nothing measured: the check fails";
}

TEST(CalibrationCheck, ConfirmsWithinTheToleranceEitherWay) {
  EXPECT_TRUE(check_confirms(1000, 1000));
  EXPECT_TRUE(check_confirms(1100, 1000));
  EXPECT_TRUE(check_confirms(900, 1000));
  EXPECT_FALSE(check_confirms(1101, 1000));
  EXPECT_FALSE(check_confirms(899, 1000));
  EXPECT_FALSE(check_confirms(0, 1000)) << "a check that measured nothing";
  EXPECT_FALSE(check_confirms(1000, 0)) << "a cache without a check value";
}

}  // namespace
}  // namespace callprof::rt

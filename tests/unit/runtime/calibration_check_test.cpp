// The check of a cached calibration: which rounds count, what confirms the cache, and which
// of its single measurements a check confirms.
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

TEST(CalibrationCheck, ConfirmsTheClosestAlternateWithinTheTolerance) {
  const uint64_t cached[] = {1000, 1400, 1300, 4700};
  EXPECT_EQ(confirmed_alternate(1390, cached, 4), 1) << "1,400 and 1,300 both confirm: the closer";
  EXPECT_EQ(confirmed_alternate(1250, cached, 4), 2);
  EXPECT_EQ(confirmed_alternate(4500, cached, 4), 3);
  EXPECT_EQ(confirmed_alternate(2000, cached, 4), -1) << "a state the cache has not seen";
  EXPECT_EQ(confirmed_alternate(0, cached, 4), -1) << "a check that measured nothing";
  EXPECT_EQ(confirmed_alternate(1000, cached, 0), -1) << "no alternates";
}

TEST(CalibrationCheck, CachedCostsAreCheckedWhereTheHooksReachOnePercentOfTheCpuTime) {
  // zstd by Clang: 2,947 calls at 25 ns (1.7 ticks a ns) in 30 ms of CPU: 0.25 %, unchecked.
  const uint64_t cost = uint64_t(25 * 1.7 * wire::kHookCostScale);
  const uint64_t cpu = uint64_t(30e6 * 1.7);
  const uint64_t enough = calls_worth_a_check(cpu, cost);
  EXPECT_GT(enough, 2947u);
  // 1 % of 30 ms is 300 us: 12,000 calls of 25 ns.
  EXPECT_GE(enough, 11990u);
  EXPECT_LE(enough, 12010u);
  EXPECT_EQ(calls_worth_a_check(cpu, 0), 0u) << "an unknown cost: any calls are worth a check";
  EXPECT_EQ(calls_worth_a_check(0, cost), 1u) << "no CPU time measured: one call is";
  EXPECT_EQ(calls_worth_a_check(UINT64_MAX, 1), UINT64_MAX) << "no overflow";
}

}  // namespace
}  // namespace callprof::rt

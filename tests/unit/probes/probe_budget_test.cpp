// The probe budget on hand-made hit streams: windows of the hits' own time, the added
// time per thread, and which functions it stops first.
#include "collect/probes/probe_budget.h"

#include <gtest/gtest.h>

namespace callprof::probes {
namespace {

constexpr uint64_t kMs = 1'000'000;

// `hits` hits of `cost_ns` each, spread evenly over [from, from + span).
void hits(ProbeBudget& b, uint32_t tid, uint32_t function, uint64_t n, uint64_t cost_ns, uint64_t from, uint64_t span) {
  for (uint64_t i = 0; i < n; ++i) b.hit(tid, function, cost_ns, from + span * i / n);
}

TEST(ProbeBudget, AddedTimeIsTheCostOverWhatTheThreadWouldHaveRun) {
  EXPECT_DOUBLE_EQ(ProbeBudget::added_percent(10 * kMs, 110 * kMs), 10.0);
  EXPECT_DOUBLE_EQ(ProbeBudget::added_percent(50 * kMs, 100 * kMs), 100.0);
  EXPECT_DOUBLE_EQ(ProbeBudget::added_percent(0, 100 * kMs), 0.0);
  EXPECT_DOUBLE_EQ(ProbeBudget::added_percent(100 * kMs, 100 * kMs), 10000.0) << "capped, not infinite";
}

TEST(ProbeBudget, WithinTheBudgetNothingStops) {
  ProbeBudget b(10);
  hits(b, 1, 0, 1000, 5'000, 0, 100 * kMs);  // 5 ms of 100: ~5 %
  hits(b, 1, 0, 1000, 5'000, 100 * kMs, 100 * kMs);
  b.hit(1, 0, 5'000, 200 * kMs);
  EXPECT_TRUE(b.take_stops().empty());
  EXPECT_FALSE(b.stopped(0));
}

TEST(ProbeBudget, TheCostliestFunctionStopsUntilTheRestFits) {
  ProbeBudget b(10);
  hits(b, 1, 0, 3000, 30'000, 0, 100 * kMs);  // 90 ms of traps in 100: 900 %
  hits(b, 1, 1, 200, 30'000, 0, 100 * kMs);   // 6 ms: ~6 % once the first is gone
  hits(b, 1, 2, 100, 30'000, 0, 100 * kMs);   // 3 ms
  EXPECT_TRUE(b.take_stops().empty()) << "decided when the window closes";
  b.hit(1, 2, 30'000, 100 * kMs);
  auto stops = b.take_stops();
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].function, 0u);
  EXPECT_EQ(stops[0].hits, 3000u);
  EXPECT_NEAR(stops[0].added_percent, 900.0, 50.0);
  EXPECT_TRUE(b.stopped(0));
  EXPECT_FALSE(b.stopped(1));
  EXPECT_TRUE(b.take_stops().empty()) << "each stop is told once";
  hits(b, 1, 0, 3000, 30'000, 100 * kMs, 100 * kMs);  // hits still in the rings: not counted again
  b.hit(1, 1, 30'000, 200 * kMs);
  EXPECT_TRUE(b.take_stops().empty());
}

TEST(ProbeBudget, SeveralGoWhenOneIsNotEnough) {
  ProbeBudget b(10);
  hits(b, 1, 0, 1000, 30'000, 0, 100 * kMs);  // 30 ms
  hits(b, 1, 1, 800, 30'000, 0, 100 * kMs);   // 24 ms
  hits(b, 1, 2, 100, 30'000, 0, 100 * kMs);   // 3 ms: stays
  b.hit(1, 2, 30'000, 100 * kMs);
  auto stops = b.take_stops();
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0].function, 0u);
  EXPECT_EQ(stops[1].function, 1u);
  EXPECT_FALSE(b.stopped(2));
}

// Four threads each slowed by 6 %: the program is 6 % slower, within a 10 % budget.
TEST(ProbeBudget, ThreadsPayForTheirOwnHits) {
  ProbeBudget b(10);
  for (uint32_t tid = 1; tid <= 4; ++tid) hits(b, tid, 0, 200, 30'000, 0, 100 * kMs);
  b.hit(1, 0, 30'000, 100 * kMs);
  EXPECT_TRUE(b.take_stops().empty());
  // One thread paying 30 % is over, whatever the others do.
  ProbeBudget c(10);
  hits(c, 1, 0, 800, 30'000, 0, 100 * kMs);
  hits(c, 2, 1, 10, 30'000, 0, 100 * kMs);
  c.hit(2, 1, 30'000, 100 * kMs);
  auto stops = c.take_stops();
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].function, 0u);
}

TEST(ProbeBudget, ZeroMeansNoBudget) {
  ProbeBudget b(0);
  EXPECT_FALSE(b.enabled());
  hits(b, 1, 0, 10000, 30'000, 0, 100 * kMs);
  b.hit(1, 0, 30'000, 200 * kMs);
  EXPECT_TRUE(b.take_stops().empty());
}

// A function that turns hot later in the run is caught in the window where it does.
TEST(ProbeBudget, ALaterHotPhaseIsCaughtInItsWindow) {
  ProbeBudget b(10);
  hits(b, 1, 0, 100, 30'000, 0, 500 * kMs);
  hits(b, 1, 1, 5000, 30'000, 500 * kMs, 100 * kMs);
  b.hit(1, 0, 30'000, 700 * kMs);
  auto stops = b.take_stops();
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].function, 1u);
}

}  // namespace
}  // namespace callprof::probes

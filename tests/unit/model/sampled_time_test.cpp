// --time sampled: every node's self time becomes its samples times the period; off-CPU and
// per-call extremes go, calls stay; a profile without cpu-clock samples is refused.
#include "model/transform/sampled_time.h"

#include <gtest/gtest.h>

#include "tree_fixtures.h"

namespace callprof {
namespace {

using testing::at;

// Exact mode's times (work's self holds folded tiny's), and the samples that say otherwise.
constexpr const char* kExactWithSamples =
    "main;work 90000000 calls=10 min=8000000 max=10000000 cpu=60000000 off=30000000 samples=40\n"
    "main;work;tiny 0 calls=0 samples=40\n"
    "main;work;[kernel] 0 calls=0 samples=5\n";

Profile sampled_profile(uint64_t hz = 1000) {
  Profile p = testing::folded(kExactWithSamples);
  p.meta.sampling.emplace();
  p.meta.sampling->frequency_hz = hz;
  p.meta.sampling->samples = 85;
  return p;
}

TEST(SampledTime, SelfTimeIsSamplesTimesThePeriod) {
  Profile p = sampled_profile();
  auto period = sample_period_ns(p);
  ASSERT_TRUE(period);
  EXPECT_DOUBLE_EQ(*period, 1e6);
  CallTree& t = p.threads[0].tree;
  use_sampled_time(t, *period);
  const Metrics work = t.base(at(p, t, {"main", "work"}));
  EXPECT_EQ(work[Metric::WallNs], 40'000'000u);
  EXPECT_EQ(work[Metric::CpuNs], 40'000'000u);
  EXPECT_EQ(work[Metric::OffCpuNs], 0u) << "samples do not see blocked time";
  EXPECT_FALSE(work.has_min(Metric::MinWallNs)) << "no per-call extremes from samples";
  EXPECT_EQ(work[Metric::MaxWallNs], 0u);
  EXPECT_EQ(work[Metric::Calls], 10u) << "the counts stay exact mode's";
  EXPECT_EQ(t.base(at(p, t, {"main", "work", "tiny"}))[Metric::WallNs], 40'000'000u)
      << "the folded callee's share back";
  EXPECT_EQ(t.base(at(p, t, {"main", "work", "[kernel]"}))[Metric::WallNs], 5'000'000u);
  EXPECT_EQ(t.base(at(p, t, {"main"}))[Metric::WallNs], 0u) << "no samples, no time";
  EXPECT_EQ(cumulative(t)[at(p, t, {"main"})][Metric::WallNs], 85'000'000u);
}

TEST(SampledTime, RefusedWithoutCpuClockSamples) {
  Profile p = testing::folded(kExactWithSamples);
  EXPECT_EQ(sample_period_ns(p).error().message,
            "--time sampled: the profile has no samples (record it with -F HZ, or in sample mode)");
  p = sampled_profile();
  p.meta.sampling->event = "cycles";
  EXPECT_NE(sample_period_ns(p).error().message.find("not of cpu-clock"), std::string::npos);
  p = sampled_profile(0);  // merged profiles of different rates
  EXPECT_NE(sample_period_ns(p).error().message.find("rates that differ"), std::string::npos);
}

}  // namespace
}  // namespace callprof

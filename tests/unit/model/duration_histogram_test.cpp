// The duration histogram behind system-call percentiles: bucket bounds are contiguous and
// monotonic, every duration falls in its bucket, and a quantile is within 1/32 of the
// true one on known distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "model/syscall_stats.h"

namespace callprof {
namespace {

TEST(DurationHistogram, BucketsAreContiguousAndHoldTheirDurations) {
  for (uint32_t b = 0; b + 1 < DurationHistogram::kBuckets; ++b) {
    ASSERT_EQ(DurationHistogram::upper(b), DurationHistogram::lower(b + 1)) << b;
    ASSERT_LT(DurationHistogram::lower(b), DurationHistogram::upper(b)) << b;
  }
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t v = rng() >> (rng() % 64);
    const uint32_t b = DurationHistogram::bucket(v);
    ASSERT_LE(DurationHistogram::lower(b), v);
    ASSERT_LT(v, DurationHistogram::upper(b)) << v;
    ASSERT_LT(b, 2048u) << "the file format's bound";
  }
  EXPECT_EQ(DurationHistogram::bucket(31), 31u) << "exact below 32 ns";
  EXPECT_EQ(DurationHistogram::bucket(UINT64_MAX), DurationHistogram::kBuckets - 1);
  EXPECT_EQ(DurationHistogram::upper(DurationHistogram::kBuckets - 1), UINT64_MAX);
}

TEST(DurationHistogram, QuantilesAreWithinTheBucketResolution) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(10, 2);  // ~22 µs median, long tail
  std::vector<uint64_t> values;
  SyscallStats s;
  for (int i = 0; i < 50000; ++i) {
    values.push_back(uint64_t(dist(rng)));
    s.add(values.back(), 0);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99}) {
    const double truth = double(values[size_t(q * double(values.size())) - 1]);
    EXPECT_NEAR(double(s.percentile(q)), truth, truth / 32 + 1) << q;
  }
  EXPECT_EQ(s.percentile(1.0), s.max_ns);
}

TEST(DurationHistogram, PercentilesAreClampedToWhatWasMeasured) {
  SyscallStats s;
  s.add(1000, 0);
  EXPECT_EQ(s.percentile(0.5), 1000u) << "one call: its duration, not its bucket's middle";
  EXPECT_EQ(s.percentile(0.99), 1000u);
  EXPECT_EQ(SyscallStats{}.percentile(0.5), 0u);
}

TEST(SyscallStats, MergeAddsCountsErrnosAndHistograms) {
  SyscallStats a, b;
  a.add(100, 0);
  a.add(300, 9);
  b.add(50, 9);
  b.add(5000, 2);
  a.merge(b);
  EXPECT_EQ(a.calls, 4u);
  EXPECT_EQ(a.errors, 3u);
  EXPECT_EQ(a.total_ns, 5450u);
  EXPECT_EQ(a.min_ns, 50u);
  EXPECT_EQ(a.max_ns, 5000u);
  EXPECT_EQ(a.errnos.at(9), 2u);
  EXPECT_EQ(a.errnos.at(2), 1u);
  uint64_t n = 0;
  for (auto [bucket, calls] : a.durations.counts()) n += calls;
  EXPECT_EQ(n, 4u);
}

}  // namespace
}  // namespace callprof

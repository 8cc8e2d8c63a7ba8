// MetricTable: only metrics some row has get a column; the others read as their default.
#include "model/metric_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace callprof {
namespace {

MetricTable rows(size_t n) {
  MetricTable t;
  for (size_t i = 0; i < n; ++i) t.push_back();
  return t;
}

TEST(MetricTable, AbsentMetricsReadAsTheirDefaultAndDefaultsAddNoColumn) {
  MetricTable t = rows(3);
  EXPECT_EQ(t[1][Metric::Calls], 0u);
  EXPECT_EQ(t[1][Metric::MinWallNs], Metrics::kUnset);
  t[1][Metric::Calls] = 0;
  t[1][Metric::MinWallNs] = Metrics::kUnset;
  EXPECT_TRUE(t.metrics().empty());
  t[2][Metric::WallNs] += 7;
  ASSERT_EQ(t.metrics().size(), 1u);
  EXPECT_EQ(t[0][Metric::WallNs], 0u);
  EXPECT_EQ(t[2][Metric::WallNs], 7u);
  EXPECT_EQ(t[2].metrics(), [] {
    Metrics m;
    m[Metric::WallNs] = 7;
    return m;
  }());
}

TEST(MetricTable, RowsAddedLaterStartAtTheDefaultsAndGrowingKeepsValues) {
  MetricTable t = rows(1);
  t[0][Metric::MinWallNs] = 5;
  t[0][Metric::Calls] = 1;
  for (size_t i = 1; i < 1000; ++i) {  // past several reallocations
    t.push_back();
    t[i][Metric::Calls] = i + 1;
  }
  EXPECT_EQ(t[0][Metric::MinWallNs], 5u);
  EXPECT_EQ(t[999][Metric::MinWallNs], Metrics::kUnset);
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(t[i][Metric::Calls], i + 1);
  EXPECT_EQ(t.sum(Metric::Calls), 1000u * 1001u / 2);
  EXPECT_EQ(t.sum(Metric::Calls, 1), 1000u * 1001u / 2 - 1);
}

TEST(MetricTable, CopiesAreIndependent) {
  MetricTable a = rows(2);
  a[1][Metric::CpuNs] = 3;
  MetricTable b = a;
  b[1][Metric::CpuNs] = 4;
  b[0][Metric::Samples] = 1;
  EXPECT_EQ(a[1][Metric::CpuNs], 3u);
  EXPECT_FALSE(a.has(Metric::Samples));
  EXPECT_EQ(b[1][Metric::CpuNs], 4u);
  a = b;
  EXPECT_EQ(a[0][Metric::Samples], 1u);
}

TEST(MetricTable, RowsMergeByEachMetricsKind) {
  MetricTable into = rows(2), from = rows(3);
  into[1][Metric::MinWallNs] = 10;
  into[1][Metric::MaxWallNs] = 10;
  from[1][Metric::MinWallNs] = 4;
  from[2][Metric::MinWallNs] = 20;
  from[1][Metric::MaxWallNs] = 30;
  from[1][Metric::Calls] = 2;
  from[2][Metric::Calls] = 3;
  into.merge_rows(from, std::vector<uint32_t>{0, 1, 1});
  EXPECT_EQ(into[1][Metric::MinWallNs], 4u);
  EXPECT_EQ(into[1][Metric::MaxWallNs], 30u);
  EXPECT_EQ(into[1][Metric::Calls], 5u);
  EXPECT_EQ(into[0][Metric::Calls], 0u);
  EXPECT_EQ(into[0][Metric::MinWallNs], Metrics::kUnset);
  // The same through a row handle.
  MetricTable one = rows(1);
  one[0].merge(from[1]);
  one[0].merge(from[2]);
  EXPECT_EQ(one[0][Metric::MinWallNs], 4u);
  EXPECT_EQ(one[0][Metric::Calls], 5u);
}

TEST(MetricTable, CumulativeRowsSumOnlyTheAdditiveMetrics) {
  // 0 <- 1 <- 2, 0 <- 3
  const std::vector<size_t> parent = {0, 0, 1, 0};
  MetricTable t = rows(4);
  for (size_t i = 1; i < 4; ++i) {
    t[i][Metric::WallNs] = 10 * i;
    t[i][Metric::MinWallNs] = i;
  }
  const MetricTable cum = cumulative_rows(t, [&](size_t i) { return parent[i]; });
  EXPECT_EQ(cum[0][Metric::WallNs], 60u);
  EXPECT_EQ(cum[1][Metric::WallNs], 30u);
  EXPECT_EQ(cum[3][Metric::WallNs], 30u);
  EXPECT_EQ(cum[1][Metric::MinWallNs], 1u) << "a minimum stays the row's own";
  EXPECT_EQ(t[1][Metric::WallNs], 10u) << "the base is unchanged";
}

TEST(MetricTable, SetColumnFillsAWholeColumn) {
  MetricTable t = rows(3);
  t.set_column(Metric::Samples, std::vector<uint64_t>{1, 2, 3});
  EXPECT_EQ(t[2][Metric::Samples], 3u);
  const MetricRowRef row = t[0];
  row = t[2];
  EXPECT_EQ(t[0][Metric::Samples], 3u) << "assigning a row handle copies values, never rebinds";
}

}  // namespace
}  // namespace callprof

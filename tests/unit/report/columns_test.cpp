// The column catalog: each column reads from the total metrics only the one it declares,
// so a view can sum the subtree totals of just those (the tree view does).
#include "report/columns.h"

#include <gtest/gtest.h>

namespace callprof {
namespace {

TEST(Columns, EachReadsOnlyItsDeclaredTotalMetric) {
  Metrics self, total;
  for (size_t m = 0; m < kMetricCount; ++m) {
    self[Metric(m)] = 1000 + 37 * m;
    total[Metric(m)] = 5000000 + 7919 * m;
  }
  for (const MetricColumnDef& c : metric_columns()) {
    Metrics only;  // every total metric at its default but the declared one
    if (c.total_metric != Metric::kCount) only[c.total_metric] = total[c.total_metric];
    EXPECT_EQ(c.value(self, only), c.value(self, total)) << c.key;
    if (c.cell) EXPECT_EQ(c.cell(self, only, 123456789), c.cell(self, total, 123456789)) << c.key;
  }
}

TEST(Columns, TotalColumnsDeclareTheirMetric) {
  EXPECT_EQ(find_metric_column("total")->total_metric, Metric::WallNs);
  EXPECT_EQ(find_metric_column("cputotal")->total_metric, Metric::CpuNs);
  EXPECT_EQ(find_metric_column("self")->total_metric, Metric::kCount);
}

}  // namespace
}  // namespace callprof

// The column catalog: each column reads from the total metrics only the one it declares,
// so a view can sum the subtree totals of just those (the tree view does); and the metrics
// only columns read are left unread exactly when no column that can be shown reads them.
#include "report/columns.h"

#include <gtest/gtest.h>

#include <algorithm>

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

// A column reads a metric when its value or cell changes with that metric alone.
bool reads(const MetricColumnDef& c, Metric m) {
  Metrics base, changed;
  for (size_t i = 0; i < kMetricCount; ++i) base[Metric(i)] = changed[Metric(i)] = 1000 + 37 * i;
  changed[m] += 999983;
  for (const auto& [self, total] : {std::pair{&changed, &base}, std::pair{&base, &changed}}) {
    if (c.value(*self, *total) != c.value(base, base)) return true;
    if (c.cell && c.cell(*self, *total, 123456789) != c.cell(base, base, 123456789)) return true;
  }
  return false;
}

TEST(Columns, ColumnOnlyMetricsAreLeftUnreadOnlyWhereNoShownColumnReadsThem) {
  const std::vector<Metric> only = column_only_metrics();
  ASSERT_EQ(metrics_no_column_reads("", ""), only) << "no default set shows them";
  EXPECT_EQ(metrics_no_column_reads("all", ""), std::vector<Metric>{});
  size_t readers = 0;
  for (const MetricColumnDef& c : metric_columns()) {
    const std::string key(c.key);
    for (Metric m : only) {
      if (!reads(c, m)) continue;
      ++readers;
      for (auto [spec, sort] : {std::pair{key, std::string()}, std::pair{"+" + key, std::string()},
                                std::pair{"calls," + key, std::string()}, std::pair{std::string(), key}}) {
        const std::vector<Metric> unread = metrics_no_column_reads(spec, sort);
        EXPECT_EQ(std::count(unread.begin(), unread.end(), m), 0)
            << "column " << key << " reads " << info(m).name << " (--columns '" << spec << "', --sort '" << sort
            << "')";
      }
    }
  }
  EXPECT_GE(readers, 2u) << "min and max read them";
}

}  // namespace
}  // namespace callprof

// The numeric columns of the function and node tables (flat, tree, callers): one catalog
// of named columns computed from a row's self and total metrics, so every view shows,
// chooses (--columns) and sorts (--sort) the same columns under the same names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/metrics.h"
#include "report/context.h"
#include "util/result.h"

namespace callprof {

enum class TableKind { Flat, Tree, Callers };

struct MetricColumnDef {
  std::string_view key;    // --columns and --sort name
  std::string_view title;  // table heading
  // The sort value (descending) from the row's self metrics (base; per function: merged
  // over its nodes) and total metrics (cum; per function: over its outermost nodes).
  uint64_t (*value)(const Metrics& self, const Metrics& total);
  // The cell text; `grand` is the report's grand total (for percentages).
  std::string (*cell)(const Metrics& self, const Metrics& total, uint64_t grand);
};

// Every column, in catalog order.
const std::vector<MetricColumnDef>& metric_columns();
// The column named `key`, or nullptr.
const MetricColumnDef* find_metric_column(std::string_view key);
// "calls, self, ..." for error messages.
std::string metric_column_keys();

// The columns a view shows: those named in options().columns (comma-separated), or the
// view's default set, which adds CPU/off-CPU, page fault, context switch, allocation and
// sample columns when the profile has them.
Result<std::vector<const MetricColumnDef*>> shown_columns(const ReportContext& ctx, TableKind kind);

}  // namespace callprof

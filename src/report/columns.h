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

// What a column's values need to be known; without it every cell prints "-", never 0.
enum class Needs : uint8_t {
  Nothing,
  Calls,     // exact calls: not a sampled profile
  Cpu,       // the CPU/off-CPU split was measured
  Samples,   // a sampled profile
  MinMax,    // single calls were timed
  Faults,    // page faults were counted (record --faults)
  Allocs,    // allocations were counted (record --alloc)
  Syscalls,  // system calls were traced (--syscalls)
  Events,    // context switches: counted with the CPU split, or present in the data
};

struct MetricColumnDef {
  std::string_view key;    // --columns and --sort name
  std::string_view title;  // table heading
  // The sort value (descending) from the row's self metrics (base; per function: merged
  // over its nodes) and total metrics (cum; per function: over its outermost nodes).
  uint64_t (*value)(MetricView self, MetricView total);
  // The cell text; `grand` is the report's grand total (for percentages).
  std::string (*cell)(MetricView self, MetricView total, uint64_t grand);
  Needs needs = Needs::Nothing;
  // The cell is the running sum of the self column over the rows shown so far (pprof's
  // sum%): the view computes it; `cell` is not used.
  bool running = false;
  // The one metric `value` and `cell` read from the total metrics (Metric::kCount: none),
  // so a view can sum only the totals its columns show.
  Metric total_metric = Metric::kCount;
};

// Does the profile give this column's values? Otherwise its cells print "-".
bool column_known(const ReportContext& ctx, const MetricColumnDef& c);
// The cell text, "-" where the value is unknown (and for running columns, which the views
// that support them compute).
std::string column_cell(const ReportContext& ctx, const MetricColumnDef& c, MetricView self, MetricView total);

// Every column, in catalog order.
const std::vector<MetricColumnDef>& metric_columns();
// The column named `key`, or nullptr.
const MetricColumnDef* find_metric_column(std::string_view key);
// "calls, self, ..." for error messages.
std::string metric_column_keys();

// The columns a view shows: the view's default set for the profile's kind (exact: calls,
// self, total, ...; sampled: samples, self, sum%, ...; plus CPU/off-CPU, faults, switches,
// allocations and system calls when the profile has them), or options().columns:
// "all", "a,b" (exactly these), "+a,-b" (the default set adjusted).
Result<std::vector<const MetricColumnDef*>> shown_columns(const ReportContext& ctx, TableKind kind);

// The metrics that only columns read (min and max of single calls: no
// analysis step or other part of a text view does)...
std::vector<Metric> column_only_metrics();
// ...and of those, the ones no column that `--columns spec` and `--sort sort` can show
// reads, in any view's default set: a text view can go without them (ReadOptions).
std::vector<Metric> metrics_no_column_reads(std::string_view spec, std::string_view sort);

}  // namespace callprof

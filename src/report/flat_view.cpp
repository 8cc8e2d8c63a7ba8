// The flat profile: one row per function, the chosen columns, sorted by any column; rows
// below the percent limit are counted in a footer instead of shown.
#include <algorithm>

#include "report/columns.h"
#include "report/function_order.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

using Columns = std::vector<const MetricColumnDef*>;

void add_function(Table& t, const ReportContext& ctx, const Columns& cols, const FunctionRow& r, uint64_t& running) {
  running += r.self[Metric::WallNs];
  std::vector<std::string> cells;
  cells.reserve(cols.size() + 2);
  for (const MetricColumnDef* c : cols)
    cells.push_back(c->running ? format_pct(running, ctx.grand_total_ns()) : column_cell(ctx, *c, r.self, r.total));
  if (ctx.show_module()) cells.emplace_back(ctx.module(r.function));
  cells.emplace_back(ctx.name(r.function));
  t.add_row(std::move(cells));
}

Table flat_table(const ReportContext& ctx, const Columns& shown) {
  std::vector<Column> cols;
  for (const MetricColumnDef* c : shown) cols.push_back({std::string(c->title)});
  if (ctx.show_module()) cols.push_back({"module", Align::Left});
  cols.push_back({"function", Align::Left});
  return Table(std::move(cols));
}

// Below the limit: both self and total under that share of the view's total.
bool below_limit(const ReportContext& ctx, const FunctionRow& r) {
  const double floor = double(ctx.grand_total_ns()) * ctx.options().percent_limit / 100.0;
  return double(r.self[Metric::WallNs]) < floor && double(r.total[Metric::WallNs]) < floor;
}

}  // namespace

Status render_flat(const ReportContext& ctx, std::ostream& out) {
  // By self, as perf report and pprof's top: a wrapper's 100 % total says nothing new.
  const std::string key = ctx.options().sort.empty() ? "self" : ctx.options().sort;
  auto less = function_order(ctx, key, "flat");
  if (!less) return less.error();
  auto cols = shown_columns(ctx, TableKind::Flat);
  if (!cols) return cols.error();
  std::vector<FunctionRow> rows;
  size_t hidden = 0;
  for (const FunctionRow& r : ctx.functions()) {
    if (!ctx.matches(r.function)) continue;
    if (below_limit(ctx, r))
      ++hidden;
    else
      rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), *less);
  if (ctx.options().limit && rows.size() > ctx.options().limit) rows.resize(ctx.options().limit);
  Table t = flat_table(ctx, *cols);
  uint64_t running = 0;
  for (const FunctionRow& r : rows) add_function(t, ctx, *cols, r, running);
  write_header(out, ctx, "flat profile");
  t.render(out, 0, ctx.options().width);
  write_hidden_footer(out, hidden, "function", ctx.options().percent_limit);
  return Ok{};
}

}  // namespace callprof

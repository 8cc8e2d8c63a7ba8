// The flat profile: one row per function, the chosen columns, sorted by any column.
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

void add_function(Table& t, const ReportContext& ctx, const Columns& cols, const FunctionRow& r) {
  std::vector<std::string> cells;
  cells.reserve(cols.size() + 2);
  for (const MetricColumnDef* c : cols) cells.push_back(c->cell(r.self, r.total, ctx.grand_total_ns()));
  cells.emplace_back(ctx.module(r.function));
  cells.emplace_back(ctx.name(r.function));
  t.add_row(std::move(cells));
}

Table flat_table(const Columns& shown) {
  std::vector<Column> cols;
  for (const MetricColumnDef* c : shown) cols.push_back({std::string(c->title)});
  cols.push_back({"module", Align::Left});
  cols.push_back({"function", Align::Left});
  return Table(std::move(cols));
}

}  // namespace

Status render_flat(const ReportContext& ctx, std::ostream& out) {
  const std::string key = ctx.options().sort.empty() ? "total" : ctx.options().sort;
  auto less = function_order(ctx, key, "flat");
  if (!less) return less.error();
  auto cols = shown_columns(ctx, TableKind::Flat);
  if (!cols) return cols.error();
  std::vector<FunctionRow> rows;
  for (const FunctionRow& r : ctx.functions())
    if (ctx.matches(r.function)) rows.push_back(r);
  std::sort(rows.begin(), rows.end(), *less);
  if (ctx.options().limit && rows.size() > ctx.options().limit) rows.resize(ctx.options().limit);
  Table t = flat_table(*cols);
  for (const FunctionRow& r : rows) add_function(t, ctx, *cols, r);
  write_header(out, ctx, "flat profile");
  t.render(out);
  return Ok{};
}

}  // namespace callprof

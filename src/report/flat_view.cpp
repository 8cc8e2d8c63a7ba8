// The flat profile: one row per function, sorted by any column.
#include <algorithm>

#include "report/function_order.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

std::string per_call(uint64_t ns, uint64_t calls) { return calls ? format_ns(ns / calls) : "-"; }

void add_function(Table& t, const ReportContext& ctx, const FunctionRow& r) {
  const TreeStats& s = ctx.stats();
  const uint64_t all = ctx.grand_total_ns();
  std::vector<std::string> cells = {
      std::to_string(r.calls),       format_ns(r.self_ns),        format_pct(r.self_ns, all),
      format_ns(r.total_ns),         format_pct(r.total_ns, all), per_call(r.self_ns, r.calls),
      per_call(r.total_ns, r.calls), format_ns(r.min_self_ns),    format_ns(r.max_self_ns)};
  if (s.has_cpu) cells.push_back(format_ns(r.cpu_ns));
  if (s.has_offcpu) cells.push_back(format_ns(r.offcpu_ns));
  if (s.has_samples) {
    cells.push_back(std::to_string(r.self_samples));
    cells.push_back(std::to_string(r.total_samples));
  }
  cells.emplace_back(ctx.module(r.function));
  cells.emplace_back(ctx.name(r.function));
  t.add_row(std::move(cells));
}

Table flat_table(const TreeStats& s) {
  std::vector<Column> cols = {{"calls"},    {"self"},      {"self%"},    {"total"},   {"total%"},
                              {"avg self"}, {"avg total"}, {"min self"}, {"max self"}};
  if (s.has_cpu) cols.push_back({"cpu"});
  if (s.has_offcpu) cols.push_back({"off-cpu"});
  if (s.has_samples) {
    cols.push_back({"samples"});
    cols.push_back({"total samples"});
  }
  cols.push_back({"module", Align::Left});
  cols.push_back({"function", Align::Left});
  return Table(std::move(cols));
}

}  // namespace

Status render_flat(const ReportContext& ctx, std::ostream& out) {
  const std::string key = ctx.options().sort.empty() ? "total" : ctx.options().sort;
  auto less = function_order(ctx, key, "flat");
  if (!less) return less.error();
  std::vector<FunctionRow> rows;
  for (const FunctionRow& r : ctx.functions())
    if (ctx.matches(r.function)) rows.push_back(r);
  std::sort(rows.begin(), rows.end(), *less);
  if (ctx.options().limit && rows.size() > ctx.options().limit) rows.resize(ctx.options().limit);
  Table t = flat_table(ctx.stats());
  for (const FunctionRow& r : rows) add_function(t, ctx, r);
  write_header(out, ctx, "flat profile");
  t.render(out);
  return Ok{};
}

}  // namespace callprof

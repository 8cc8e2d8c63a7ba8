// The callers/callees view: one gprof-style stanza per function with measured (not
// apportioned) edge times. Parent rows: calls n/N with N the function's calls; child
// rows: n/N with N the child's calls. Exact invariants are listed in docs/json.md.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "report/columns.h"
#include "report/function_order.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

using EdgeMap = std::unordered_map<FunctionId, std::vector<EdgeRow>>;

struct Stanzas {
  const ReportContext& ctx;
  std::vector<FunctionRow> order;                // all functions, stanza order
  std::unordered_map<FunctionId, size_t> index;  // function -> [index]
  EdgeMap parents, children;                     // by callee, by caller
  std::vector<const MetricColumnDef*> columns;   // between edge% and calls
};

// index, total%, edge%, the chosen columns (self, total, ...), calls, function.
std::vector<std::string> row(const Stanzas& s, std::string index, std::string total_pct, std::string edge_pct,
                             MetricView self, MetricView total, std::string calls, std::string name) {
  std::vector<std::string> cells = {std::move(index), std::move(total_pct), std::move(edge_pct)};
  for (const MetricColumnDef* c : s.columns) cells.push_back(column_cell(s.ctx, *c, self, total));
  cells.push_back(std::move(calls));
  cells.push_back(std::move(name));
  return cells;
}

const std::vector<EdgeRow>& edges_of(const EdgeMap& map, FunctionId id) {
  static const std::vector<EdgeRow> kNone;
  auto it = map.find(id);
  return it == map.end() ? kNone : it->second;
}

std::string label(const Stanzas& s, const ReportContext& ctx, FunctionId f) {
  auto it = s.index.find(f);
  if (it == s.index.end()) return std::string(ctx.name(f));
  return fmt::format("{} [{}]", ctx.name(f), it->second);
}

// Recursion, and inlining (sampled stacks): the callee's code ran inside the caller on every
// path of the edge, or on some of them.
std::string edge_mark(const EdgeRow& e) {
  const std::string inlined = e.inlined_nodes == 0         ? ""
                              : e.inlined_nodes == e.nodes ? " [inlined]"
                                                           : " [partly inlined]";
  if (e.caller == e.callee) return " <self-recursive>" + inlined;
  return (e.recursive_calls ? " <recursive>" : "") + inlined;
}

bool hotter_edge(const EdgeRow& a, const EdgeRow& b) {
  if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
  if (a.self_ns != b.self_ns) return a.self_ns > b.self_ns;
  if (a.calls != b.calls) return a.calls > b.calls;
  return std::pair(a.caller, a.callee) < std::pair(b.caller, b.callee);
}

void add_edge(Table& t, const ReportContext& ctx, const Stanzas& s, const FunctionRow& f, const EdgeRow& e,
              FunctionId other, uint64_t of_calls) {
  t.add_row(row(s, "", "", format_pct(e.total_ns, f.total_ns), e.self, e.total,
                s.ctx.sampled() ? "-" : fmt::format("{}/{}", e.calls, of_calls),
                "    " + label(s, ctx, other) + edge_mark(e)));
}

void add_stanza(Table& t, const ReportContext& ctx, const Stanzas& s, const FunctionRow& f) {
  for (const EdgeRow& e : edges_of(s.parents, f.function)) add_edge(t, ctx, s, f, e, e.caller, f.calls);
  const std::string rec = f.recursive_calls ? fmt::format(" <{} recursive>", f.recursive_calls) : "";
  t.add_row(row(s, fmt::format("[{}]", s.index.at(f.function)), format_pct(f.total_ns, ctx.grand_total_ns()), "",
                f.self, f.total, s.ctx.sampled() ? "-" : std::to_string(f.calls), label(s, ctx, f.function) + rec));
  for (const EdgeRow& e : edges_of(s.children, f.function)) {
    const FunctionRow* callee = ctx.row(e.callee);
    add_edge(t, ctx, s, f, e, e.callee, callee ? callee->calls : 0);
  }
  t.add_rule();
}

}  // namespace

Status render_callers(const ReportContext& ctx, std::ostream& out) {
  const std::string key = ctx.options().sort.empty() ? "total" : ctx.options().sort;
  auto less = function_order(ctx, key, "callers");
  if (!less) return less.error();
  auto columns = shown_columns(ctx, TableKind::Callers);
  if (!columns) return columns.error();
  Stanzas s{ctx, {}, {}, {}, {}, {}};
  s.columns = std::move(columns).value();
  s.order = ctx.functions();
  std::sort(s.order.begin(), s.order.end(), *less);
  // Indices number every function, so they stay the same whatever the filter shows.
  for (size_t i = 0; i < s.order.size(); ++i) s.index[s.order[i].function] = i + 1;
  for (const EdgeRow& e : ctx.edges()) {
    s.parents[e.callee].push_back(e);
    if (e.caller != kNoFunction) s.children[e.caller].push_back(e);
  }
  for (auto* m : {&s.parents, &s.children})
    for (auto& [f, list] : *m) std::sort(list.begin(), list.end(), hotter_edge);
  std::vector<Column> titles = {{"index", Align::Left}, {"total%"}, {"edge%"}};
  for (const MetricColumnDef* c : s.columns) titles.push_back({std::string(c->title)});
  titles.push_back({"calls"});
  titles.push_back({"function", Align::Left});
  Table t(std::move(titles));
  size_t shown = 0, hidden = 0;
  const double floor = double(ctx.grand_total_ns()) * ctx.options().percent_limit / 100.0;
  for (const FunctionRow& f : s.order) {
    if (!ctx.matches(f.function)) continue;
    if (double(f.self[Metric::WallNs]) < floor && double(f.total[Metric::WallNs]) < floor) {
      ++hidden;
      continue;
    }
    if (ctx.options().limit && shown++ == ctx.options().limit) break;
    add_stanza(t, ctx, s, f);
  }
  write_header(out, ctx, "callers/callees");
  out << "# per stanza: callers, the function [index], callees. Edge rows: self/total are the\n"
         "# callee's time on behalf of that caller (measured); calls n/N: n of the callee's N\n"
         "# calls; edge%: the edge's total as a share of the stanza function's total.\n\n";
  t.render(out, 0, ctx.options().width);
  write_hidden_footer(out, hidden, "function", ctx.options().percent_limit);
  return Ok{};
}

}  // namespace callprof

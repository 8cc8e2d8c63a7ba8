// The callers/callees view: one gprof-style stanza per function with measured (not
// apportioned) edge times. Parent rows: calls n/N with N the function's calls; child
// rows: n/N with N the child's calls. Exact invariants are listed in docs/json.md.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "report/function_order.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

using EdgeMap = std::unordered_map<FunctionId, std::vector<EdgeRow>>;

struct Stanzas {
  std::vector<FunctionRow> order;                // all functions, stanza order
  std::unordered_map<FunctionId, size_t> index;  // function -> [index]
  EdgeMap parents, children;                     // by callee, by caller
};

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

std::string edge_mark(const EdgeRow& e) {
  if (e.caller == e.callee) return " <self-recursive>";
  return e.recursive_calls ? " <recursive>" : "";
}

bool hotter_edge(const EdgeRow& a, const EdgeRow& b) {
  if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
  if (a.self_ns != b.self_ns) return a.self_ns > b.self_ns;
  if (a.calls != b.calls) return a.calls > b.calls;
  return std::pair(a.caller, a.callee) < std::pair(b.caller, b.callee);
}

void add_edge(Table& t, const ReportContext& ctx, const Stanzas& s, const FunctionRow& f, const EdgeRow& e,
              FunctionId other, uint64_t of_calls) {
  t.add_row({"", "", format_pct(e.total_ns, f.total_ns), format_ns(e.self_ns), format_ns(e.total_ns),
             fmt::format("{}/{}", e.calls, of_calls), "    " + label(s, ctx, other) + edge_mark(e)});
}

void add_stanza(Table& t, const ReportContext& ctx, const Stanzas& s, const FunctionRow& f) {
  for (const EdgeRow& e : edges_of(s.parents, f.function)) add_edge(t, ctx, s, f, e, e.caller, f.calls);
  const std::string rec = f.recursive_calls ? fmt::format(" <{} recursive>", f.recursive_calls) : "";
  t.add_row({fmt::format("[{}]", s.index.at(f.function)), format_pct(f.total_ns, ctx.grand_total_ns()), "",
             format_ns(f.self_ns), format_ns(f.total_ns), std::to_string(f.calls), label(s, ctx, f.function) + rec});
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
  Stanzas s;
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
  Table t({{"index", Align::Left}, {"total%"}, {"edge%"}, {"self"}, {"total"}, {"calls"}, {"function", Align::Left}});
  size_t shown = 0;
  for (const FunctionRow& f : s.order) {
    if (!ctx.matches(f.function)) continue;
    if (ctx.options().limit && shown++ == ctx.options().limit) break;
    add_stanza(t, ctx, s, f);
  }
  write_header(out, ctx, "callers/callees");
  out << "# per stanza: callers, the function [index], callees. Edge rows: self/total are the\n"
         "# callee's time on behalf of that caller (measured); calls n/N: n of the callee's N\n"
         "# calls; edge%: the edge's total as a share of the stanza function's total.\n\n";
  t.render(out);
  return Ok{};
}

}  // namespace callprof

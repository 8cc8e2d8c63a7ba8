// The summary: size and shape of the tree, then the top of each ranking (functions,
// edges, paths) and the share of each module. The filter narrows the rankings only.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "graph/modules.h"
#include "graph/node_filter.h"
#include "report/function_order.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

constexpr size_t kDefaultTop = 10;

void write_shape(const ReportContext& ctx, std::ostream& out) {
  const TreeStats& s = ctx.stats();
  Table t({{"", Align::Left}, {"", Align::Left}});
  t.add_row({"nodes", std::to_string(s.nodes)});
  t.add_row({"edges", fmt::format("{} (distinct caller > callee pairs)", s.edges)});
  t.add_row({"functions", std::to_string(s.functions)});
  t.add_row({"calls", fmt::format("{} ({} direct, {} indirect; {} recursive)", s.calls, s.calls - s.indirect_calls,
                                  s.indirect_calls, s.recursive_calls)});
  t.add_row({"max depth", std::to_string(s.max_depth)});
  t.add_row({"deepest recursion",
             s.deepest_recursion_function == kNoFunction
                 ? "none"
                 : fmt::format("{} (level {})", ctx.name(s.deepest_recursion_function), s.deepest_recursion_level)});
  t.add_row({"total time", format_ns(ctx.grand_total_ns())});
  t.hide_titles();
  t.render(out);
  out << '\n';
}

// Where CPU time was measured, rankings follow it: wall time ranks a multi-threaded
// program's idle worker loops first.
bool rank_by_cpu(const ReportContext& ctx) { return ctx.cpu_measured() && ctx.stats().has_cpu; }

Status write_functions(const ReportContext& ctx, size_t top, std::ostream& out) {
  const std::string key = !ctx.options().sort.empty() ? ctx.options().sort : rank_by_cpu(ctx) ? "cpu" : "self";
  auto less = function_order(ctx, key, "summary");
  if (!less) return less.error();
  std::vector<FunctionRow> rows;
  for (const FunctionRow& r : ctx.functions())
    if (ctx.matches(r.function)) rows.push_back(r);
  std::sort(rows.begin(), rows.end(), *less);
  const bool cpu = ctx.cpu_measured(), sampled = ctx.sampled();
  std::vector<Column> cols = {{sampled ? "samples" : "calls"}};
  if (cpu) cols.insert(cols.end(), {{"cpu"}, {"cpu%"}});
  cols.insert(cols.end(), {{"self"}, {"self%"}, {"total"}, {"total%"}, {"function", Align::Left}});
  Table t(std::move(cols));
  const uint64_t grand = ctx.grand_total_ns(), grand_cpu = ctx.analysis().total(Metric::CpuNs);
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const FunctionRow& r = rows[i];
    std::vector<std::string> cells = {std::to_string(sampled ? r.self_samples : r.calls)};
    if (cpu) cells.insert(cells.end(), {format_ns(r.cpu_ns), format_pct(r.cpu_ns, grand_cpu)});
    cells.insert(cells.end(), {format_ns(r.self_ns), format_pct(r.self_ns, grand), format_ns(r.total_ns),
                               format_pct(r.total_ns, grand), std::string(ctx.name(r.function))});
    t.add_row(std::move(cells));
  }
  out << fmt::format("hottest functions (by {}):\n", escape_text(key));
  t.render(out, 2, ctx.options().width);
  out << '\n';
  return Ok{};
}

void write_edges(const ReportContext& ctx, size_t top, std::ostream& out) {
  std::vector<EdgeRow> rows;
  for (const EdgeRow& e : ctx.edges())
    if (e.caller != kNoFunction && (ctx.matches(e.caller) || ctx.matches(e.callee))) rows.push_back(e);
  std::sort(rows.begin(), rows.end(), [](const EdgeRow& a, const EdgeRow& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return std::pair(a.caller, a.callee) < std::pair(b.caller, b.callee);
  });
  Table t({{"calls"}, {"self"}, {"total"}, {"total%"}, {"caller > callee", Align::Left}});
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const EdgeRow& e = rows[i];
    t.add_row({std::to_string(e.calls), format_ns(e.self_ns), format_ns(e.total_ns),
               format_pct(e.total_ns, ctx.grand_total_ns()),
               fmt::format("{} > {}", ctx.name(e.caller), ctx.name(e.callee))});
  }
  out << "hottest edges (by total):\n";
  t.render(out, 2, ctx.options().width);
  out << '\n';
}

void write_paths(const ReportContext& ctx, size_t top, std::ostream& out) {
  const CallTree& tree = ctx.tree();
  const std::vector<bool> on_path = nodes_below_match(tree, [&](FunctionId f) { return ctx.matches(f); });
  const bool cpu = rank_by_cpu(ctx);
  std::vector<Column> cols = {{ctx.sampled() ? "samples" : "calls"}};
  if (cpu) cols.push_back({"cpu"});
  cols.insert(cols.end(), {{"self"}, {"self%"}, {"path", Align::Left}});
  Table t(std::move(cols));
  // The hottest nodes in order, only as many as the rows need: a filter skips some, so ask
  // for more until `top` of them are on a matching path or every node was ranked (sorting
  // all of a million nodes was most of this view's own time).
  const Metric by = cpu ? Metric::CpuNs : Metric::WallNs;
  std::vector<NodeId> hot;
  for (size_t want = std::max<size_t>(top, 1);; want *= 4) {
    hot = hottest_nodes(tree, want, by);
    const auto shown = std::count_if(hot.begin(), hot.end(), [&](NodeId id) { return bool(on_path[id]); });
    if (size_t(shown) >= top || hot.size() < want || want >= tree.size()) break;
  }
  for (NodeId id : hot) {
    if (t.rows() == top) break;
    if (!on_path[id]) continue;
    const std::string path = ctx.path_text(tree.path_to(id));
    const MetricRow b = tree.base(id);
    std::vector<std::string> cells = {std::to_string(b[ctx.sampled() ? Metric::Samples : Metric::Calls])};
    if (cpu) cells.push_back(format_ns(b[Metric::CpuNs]));
    cells.insert(cells.end(),
                 {format_ns(b[Metric::WallNs]), format_pct(b[Metric::WallNs], ctx.grand_total_ns()), path});
    t.add_row(std::move(cells));
  }
  out << (cpu ? "hottest paths (by CPU time of the last function):\n"
              : "hottest paths (by self time of the last function):\n");
  t.render(out, 2, ctx.options().width);
  out << '\n';
}

void write_modules(const ReportContext& ctx, std::ostream& out) {
  const Profile& p = ctx.profile();
  Table t({{"calls"}, {"self"}, {"self%"}, {"functions"}, {"module", Align::Left}});
  for (const ModuleRow& m : module_rows(p, ctx.functions())) {
    const std::string name = m.module == kNoModule ? "[unknown]" : p.modules[m.module].path;
    t.add_row({std::to_string(m.calls), format_ns(m.self_ns), format_pct(m.self_ns, ctx.grand_total_ns()),
               std::to_string(m.functions), name});
  }
  out << "modules (share of self time):\n";
  t.render(out, 2);
}

}  // namespace

Status render_summary(const ReportContext& ctx, std::ostream& out) {
  const size_t top = ctx.options().limit ? ctx.options().limit : kDefaultTop;
  std::ostringstream body;  // the sort column is checked before anything is written
  if (Status ok = write_functions(ctx, top, body); !ok) return ok.error();
  write_header(out, ctx, "summary");
  write_shape(ctx, out);
  out << body.str();
  write_edges(ctx, top, out);
  write_paths(ctx, top, out);
  if (ctx.show_module()) write_modules(ctx, out);
  return Ok{};
}

}  // namespace callprof

// `--view callers-of --function REGEX`: the inverted tree. For each matching function,
// every path that reaches it, bottom-up, with the calls and times it got along that path
// (measured per path, never apportioned); percentages are of the function's own total.
#include <fmt/format.h>

#include <algorithm>

#include "model/transform/invert.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

// Marks where the caller chain was cut (kInvertedCallerLimit levels); never a real id.
constexpr FunctionId kCutMarker = kNoFunction - 1;
constexpr size_t kMaxIndentLevels = 64;

struct Inverted {
  const ReportContext& ctx;
  InvertedTree inv;
  bool sampled;
};

std::string label(const Inverted& d, FunctionId f) {
  if (f == kCutMarker) return fmt::format("[callers beyond {} levels not shown]", kInvertedCallerLimit);
  return std::string(d.ctx.name(f));
}

void add_row(Table& t, const Inverted& d, NodeId id, size_t depth, uint64_t of_total) {
  const MetricRow self = d.inv.self[id];
  const MetricRow total = d.inv.total[id];
  const std::string name =
      std::string(2 * (std::min(depth, kMaxIndentLevels) - 1), ' ') + label(d, d.inv.tree.node(id).function);
  if (d.inv.tree.node(id).function == kCutMarker) {
    t.add_row({"", "", "", "", name});
    return;
  }
  t.add_row({std::to_string(self[d.sampled ? Metric::Samples : Metric::Calls]), format_ns(self[Metric::WallNs]),
             format_ns(total[Metric::WallNs]), format_pct(total[Metric::WallNs], of_total), name});
}

// One stanza per matching function: depth-first, hottest caller first; subtrees below the
// percent limit are counted, not shown.
size_t add_stanza(Table& t, const Inverted& d, NodeId top, double percent_limit) {
  const uint64_t of_total = d.inv.total[top][Metric::WallNs];
  const double floor = of_total * percent_limit / 100.0;
  size_t hidden = 0;
  std::vector<std::pair<NodeId, size_t>> stack{{top, 1}};
  std::vector<NodeId> kids;
  while (!stack.empty()) {
    auto [id, depth] = stack.back();
    stack.pop_back();
    add_row(t, d, id, depth, of_total);
    kids.clear();
    for (NodeId k : d.inv.tree.children(id)) {
      const bool marker = d.inv.tree.node(k).function == kCutMarker;
      if (!marker && double(d.inv.total[k][Metric::WallNs]) < floor) {
        ++hidden;
        continue;
      }
      kids.push_back(k);
    }
    std::sort(kids.begin(), kids.end(), [&](NodeId a, NodeId b) {
      const uint64_t ta = d.inv.total[a][Metric::WallNs], tb = d.inv.total[b][Metric::WallNs];
      return ta != tb ? ta > tb : a < b;
    });
    for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back({*k, depth + 1});
  }
  return hidden;
}

}  // namespace

Status render_callers_of(const ReportContext& ctx, std::ostream& out) {
  auto pattern = Pattern::compile(ctx.options().function, "--function");
  if (!pattern) return pattern.error();
  const std::vector<bool> match = matching_functions(ctx.profile(), *pattern);
  Inverted d{ctx,
             inverted_tree(
                 ctx.tree(), ctx.nodes().cum, ctx.nodes().level,
                 [&](FunctionId f) { return f < match.size() && match[f]; }, kInvertedCallerLimit, kCutMarker),
             ctx.sampled()};
  std::vector<NodeId> tops = d.inv.tree.children(kRootNode);
  if (tops.empty())
    return make_error(
        fmt::format("no function in the selection matches --function '{}'", escape_text(ctx.options().function)));
  std::sort(tops.begin(), tops.end(),
            [&](NodeId a, NodeId b) { return d.inv.total[a][Metric::WallNs] > d.inv.total[b][Metric::WallNs]; });
  Table t({{d.sampled ? "samples" : "calls"}, {"self"}, {"total"}, {"total%"}, {"function < callers", Align::Left}});
  size_t hidden = 0, shown = 0;
  for (NodeId top : tops) {
    if (ctx.options().limit && shown++ == ctx.options().limit) break;
    hidden += add_stanza(t, d, top, ctx.options().percent_limit);
    t.add_rule();
  }
  write_header(out, ctx, "callers of " + escape_text(ctx.options().function));
  out << "# each function, then every path that reaches it, bottom-up: calls, self and total are\n"
         "# the function's own along that path; total% is of the function's total.\n\n";
  t.render(out);
  write_hidden_footer(out, hidden, "caller path", ctx.options().percent_limit);
  return Ok{};
}

}  // namespace callprof

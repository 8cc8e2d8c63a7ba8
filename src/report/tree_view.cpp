// The calling context tree as a table, children ordered by a column, names indented by
// depth. With a filter: matching nodes, their ancestors and their subtrees.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "graph/node_filter.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

// Indentation stops growing here so a deep recursion cannot produce megabyte lines;
// the level column still gives the true depth.
constexpr size_t kMaxIndentLevels = 64;

// The tree with its per-node quantities, from the context (computed once per report).
struct NodeData {
  const CallTree& tree;
  const std::vector<Metrics>& cum;
  const std::vector<uint32_t>& level;
};

struct NodeKey {
  std::string_view name;
  uint64_t (*value)(const Metrics& base, const Metrics& cum);
};

uint64_t or_zero(uint64_t v) { return v == Metrics::kUnset ? 0 : v; }

constexpr std::array<NodeKey, 9> kKeys = {{
    {"calls", [](const Metrics& b, const Metrics&) { return b[Metric::Calls]; }},
    {"self", [](const Metrics& b, const Metrics&) { return b[Metric::WallNs]; }},
    {"total", [](const Metrics&, const Metrics& c) { return c[Metric::WallNs]; }},
    {"avg",
     [](const Metrics& b, const Metrics&) { return b[Metric::Calls] ? b[Metric::WallNs] / b[Metric::Calls] : 0; }},
    {"min", [](const Metrics& b, const Metrics&) { return or_zero(b[Metric::MinWallNs]); }},
    {"max", [](const Metrics& b, const Metrics&) { return b[Metric::MaxWallNs]; }},
    {"cpu", [](const Metrics& b, const Metrics&) { return b[Metric::CpuNs]; }},
    {"offcpu", [](const Metrics& b, const Metrics&) { return b[Metric::OffCpuNs]; }},
    {"samples", [](const Metrics& b, const Metrics&) { return b[Metric::Samples]; }},
}};

using NodeLess = std::function<bool(NodeId, NodeId)>;

Result<NodeLess> node_order(const ReportContext& ctx, const NodeData& d, std::string key) {
  if (key.empty() || key == "cum") key = "total";
  if (key == "base") key = "self";
  const NodeData* p = &d;
  const ReportContext* c = &ctx;
  auto tie = [p, c](NodeId a, NodeId b) {
    const uint64_t ca = p->cum[a][Metric::WallNs], cb = p->cum[b][Metric::WallNs];
    if (ca != cb) return ca > cb;
    const std::string_view na = c->name(p->tree.node(a).function);
    const std::string_view nb = c->name(p->tree.node(b).function);
    return na != nb ? na < nb : a < b;
  };
  if (key == "name")
    return NodeLess([p, c](NodeId a, NodeId b) {
      const std::string_view na = c->name(p->tree.node(a).function);
      const std::string_view nb = c->name(p->tree.node(b).function);
      return na != nb ? na < nb : a < b;
    });
  for (const NodeKey& k : kKeys) {
    if (k.name != key) continue;
    auto value = k.value;
    return NodeLess([p, value, tie](NodeId a, NodeId b) {
      const uint64_t va = value(p->tree.node(a).base, p->cum[a]);
      const uint64_t vb = value(p->tree.node(b).base, p->cum[b]);
      return va != vb ? va > vb : tie(a, b);
    });
  }
  std::string valid;
  for (const NodeKey& k : kKeys) valid += fmt::format("{}, ", k.name);
  return make_error(
      fmt::format("unknown sort column '{}' for the tree view (valid: {}name; "
                  "base and cum are aliases of self and total)",
                  escape_text(key), valid));
}

Table tree_table(const TreeStats& s) {
  std::vector<Column> cols = {{"level"}, {"rec"},    {"calls"},    {"self"},
                              {"total"}, {"total%"}, {"min self"}, {"max self"}};
  if (s.has_cpu) cols.push_back({"cpu"});
  if (s.has_offcpu) cols.push_back({"off-cpu"});
  if (s.has_samples) cols.push_back({"samples"});
  cols.push_back({"function", Align::Left});
  return Table(std::move(cols));
}

void add_node(Table& t, const ReportContext& ctx, const NodeData& d, NodeId id, size_t depth) {
  const Metrics& b = d.tree.node(id).base;
  const Metrics& c = d.cum[id];
  std::vector<std::string> cells = {std::to_string(depth),
                                    std::to_string(d.level[id]),
                                    std::to_string(b[Metric::Calls]),
                                    format_ns(b[Metric::WallNs]),
                                    format_ns(c[Metric::WallNs]),
                                    format_pct(c[Metric::WallNs], ctx.grand_total_ns()),
                                    format_ns(b[Metric::MinWallNs]),
                                    format_ns(b.has_min(Metric::MinWallNs) ? b[Metric::MaxWallNs] : Metrics::kUnset)};
  if (ctx.stats().has_cpu) cells.push_back(format_ns(b[Metric::CpuNs]));
  if (ctx.stats().has_offcpu) cells.push_back(format_ns(b[Metric::OffCpuNs]));
  if (ctx.stats().has_samples) cells.push_back(std::to_string(b[Metric::Samples]));
  const size_t indent = 2 * (std::min(depth, kMaxIndentLevels) - 1);
  cells.push_back(std::string(indent, ' ').append(ctx.name(d.tree.node(id).function)));
  t.add_row(std::move(cells));
}

}  // namespace

Status render_tree(const ReportContext& ctx, std::ostream& out) {
  const NodeData d{ctx.tree(), ctx.nodes().cum, ctx.nodes().level};
  auto less = node_order(ctx, d, ctx.options().sort);
  if (!less) return less.error();
  const std::vector<bool> shown = select_nodes(ctx.tree(), [&](FunctionId f) { return ctx.matches(f); });
  Table t = tree_table(ctx.stats());
  const size_t limit = ctx.options().limit;
  // Depth-first with an explicit stack: recursion can make the tree arbitrarily deep.
  std::vector<std::pair<NodeId, size_t>> stack{{kRootNode, 0}};
  std::vector<NodeId> kids;
  while (!stack.empty() && !(limit && t.rows() == limit)) {
    auto [id, depth] = stack.back();
    stack.pop_back();
    if (id != kRootNode) add_node(t, ctx, d, id, depth);
    kids.clear();
    for (NodeId k = d.tree.node(id).first_child; k != kNoNode; k = d.tree.node(k).next_sibling)
      if (shown[k]) kids.push_back(k);
    std::sort(kids.begin(), kids.end(), *less);
    for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back({*k, depth + 1});
  }
  write_header(out, ctx, "call tree");
  t.render(out);
  return Ok{};
}

}  // namespace callprof

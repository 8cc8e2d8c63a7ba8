// The calling context tree as a table, children ordered by a column, names indented by
// depth. With a filter: matching nodes, their ancestors and their subtrees.
#include <fmt/format.h>

#include <algorithm>

#include "graph/node_filter.h"
#include "report/columns.h"
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
  if (const MetricColumnDef* column = find_metric_column(key)) {
    auto value = column->value;
    return NodeLess([p, value, tie](NodeId a, NodeId b) {
      const uint64_t va = value(p->tree.node(a).base, p->cum[a]);
      const uint64_t vb = value(p->tree.node(b).base, p->cum[b]);
      return va != vb ? va > vb : tie(a, b);
    });
  }
  return make_error(
      fmt::format("unknown sort column '{}' for the tree view (valid: {}, name; "
                  "base and cum are aliases of self and total)",
                  escape_text(key), metric_column_keys()));
}

using Columns = std::vector<const MetricColumnDef*>;

Table tree_table(const Columns& shown) {
  std::vector<Column> cols = {{"level"}, {"rec"}};
  for (const MetricColumnDef* c : shown) cols.push_back({std::string(c->title)});
  cols.push_back({"function", Align::Left});
  return Table(std::move(cols));
}

void add_node(Table& t, const ReportContext& ctx, const NodeData& d, const Columns& cols, NodeId id, size_t depth) {
  std::vector<std::string> cells = {std::to_string(depth), std::to_string(d.level[id])};
  cells.reserve(cols.size() + 3);
  for (const MetricColumnDef* c : cols) cells.push_back(c->cell(d.tree.node(id).base, d.cum[id], ctx.grand_total_ns()));
  const size_t indent = 2 * (std::min(depth, kMaxIndentLevels) - 1);
  cells.push_back(std::string(indent, ' ').append(ctx.name(d.tree.node(id).function)));
  t.add_row(std::move(cells));
}

}  // namespace

Status render_tree(const ReportContext& ctx, std::ostream& out) {
  const NodeData d{ctx.tree(), ctx.nodes().cum, ctx.nodes().level};
  auto less = node_order(ctx, d, ctx.options().sort);
  if (!less) return less.error();
  auto cols = shown_columns(ctx, TableKind::Tree);
  if (!cols) return cols.error();
  const std::vector<bool> shown = select_nodes(ctx.tree(), [&](FunctionId f) { return ctx.matches(f); });
  Table t = tree_table(*cols);
  const size_t limit = ctx.options().limit;
  // Depth-first with an explicit stack: recursion can make the tree arbitrarily deep.
  std::vector<std::pair<NodeId, size_t>> stack{{kRootNode, 0}};
  std::vector<NodeId> kids;
  while (!stack.empty() && !(limit && t.rows() == limit)) {
    auto [id, depth] = stack.back();
    stack.pop_back();
    if (id != kRootNode) add_node(t, ctx, d, *cols, id, depth);
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

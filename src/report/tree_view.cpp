// The calling context tree as a table, children ordered by a column, names indented by
// depth. With a filter: matching nodes, their ancestors and their subtrees. Children below
// the percent limit fold into one row per parent, so totals stay readable at every level.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

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
  const MetricTable& cum;
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
      const uint64_t va = value(p->tree.base(a), p->cum[a]);
      const uint64_t vb = value(p->tree.base(b), p->cum[b]);
      return va != vb ? va > vb : tie(a, b);
    });
  }
  return make_error(
      fmt::format("unknown sort column '{}' for the tree view (valid: {}, name; "
                  "base and cum are aliases of self and total)",
                  escape_text(key), metric_column_keys()));
}

using Columns = std::vector<const MetricColumnDef*>;

std::string indentation(size_t depth) { return std::string(2 * (std::min(depth, kMaxIndentLevels) - 1), ' '); }

Table tree_table(const Columns& shown) {
  std::vector<Column> cols = {{"level"}, {"rec"}};
  for (const MetricColumnDef* c : shown) cols.push_back({std::string(c->title)});
  cols.push_back({"function", Align::Left});
  return Table(std::move(cols));
}

std::vector<std::string> node_cells(const ReportContext& ctx, const NodeData& d, const Columns& cols, NodeId id,
                                    size_t depth) {
  std::vector<std::string> cells = {std::to_string(depth), std::to_string(d.level[id])};
  cells.reserve(cols.size() + 3);
  for (const MetricColumnDef* c : cols) cells.push_back(column_cell(ctx, *c, d.tree.base(id), d.cum[id]));
  // An inlined frame is its function all the same (flat and callers views add it up with
  // its calls); the tree says where the compiler inlined it.
  cells.push_back(indentation(depth).append(ctx.name(d.tree.node(id).function)).append(d.tree.node(id).inlined ? " [inlined]" : ""));
  return cells;
}

// The children of one parent that fell below the limit, as one row: their summed total.
std::vector<std::string> folded_cells(const ReportContext& ctx, const Columns& cols, const Metrics& total, size_t count,
                                      size_t depth) {
  std::vector<std::string> cells = {std::to_string(depth), ""};
  for (const MetricColumnDef* c : cols)
    cells.push_back(c->key == "total" || c->key == "total%" ? column_cell(ctx, *c, Metrics(), total) : "");
  cells.push_back(indentation(depth).append(
      fmt::format("[{} more below {:g} %]", count, ctx.options().percent_limit)));
  return cells;
}

// A row of the tree view: a node, or the folded children of a node (id kNoNode, `fold`
// indexing the summed totals).
struct TreeRow {
  NodeId id;
  uint32_t depth;
  size_t fold;
};

// The shown tree depth first, children in the view's order; children below the percent
// limit become one row per parent (their sums in `folds`). Returns how many nodes were
// folded that way.
size_t walk_tree(const ReportContext& ctx, const NodeData& d, const NodeLess& less, const std::vector<bool>& shown,
                 std::vector<TreeRow>& rows, std::vector<std::pair<Metrics, size_t>>& folds) {
  const size_t limit = ctx.options().limit;
  const double floor = double(ctx.grand_total_ns()) * ctx.options().percent_limit / 100.0;
  size_t folded = 0;
  // Depth-first with an explicit stack: recursion can make the tree arbitrarily deep. A
  // node id of kNoNode on the stack stands for the folded row of the parent below it.
  std::vector<TreeRow> stack{{kRootNode, 0, 0}};
  std::vector<NodeId> kids;
  while (!stack.empty() && !(limit && rows.size() == limit)) {
    const TreeRow e = stack.back();
    stack.pop_back();
    if (e.id != kRootNode) rows.push_back(e);
    if (e.id == kNoNode) continue;
    kids.clear();
    Metrics small;
    size_t small_count = 0;
    for (NodeId k = d.tree.node(e.id).first_child; k != kNoNode; k = d.tree.node(k).next_sibling) {
      if (!shown[k]) continue;
      if (double(d.cum[k][Metric::WallNs]) < floor) {
        add_sums(small, d.cum[k]);
        ++small_count;
      } else {
        kids.push_back(k);
      }
    }
    std::sort(kids.begin(), kids.end(), less);
    if (small_count) {
      stack.push_back({kNoNode, e.depth + 1, folds.size()});
      folds.emplace_back(small, small_count);
      folded += small_count;
    }
    for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back({*k, e.depth + 1, 0});
  }
  return folded;
}

}  // namespace

// The rows' cells are made twice, to measure the columns and then to write them, rather
// than kept: with every path shown (--percent-limit 0) a million rows would be held at once.
Status render_tree(const ReportContext& ctx, std::ostream& out) {
  const NodeData d{ctx.tree(), ctx.nodes().cum, ctx.nodes().level};
  auto less = node_order(ctx, d, ctx.options().sort);
  if (!less) return less.error();
  auto cols = shown_columns(ctx, TableKind::Tree);
  if (!cols) return cols.error();
  const std::vector<bool> shown = select_nodes(ctx.tree(), [&](FunctionId f) { return ctx.matches(f); });
  std::vector<TreeRow> rows;
  std::vector<std::pair<Metrics, size_t>> folds;
  const size_t folded = walk_tree(ctx, d, *less, shown, rows, folds);
  auto cells = [&](const TreeRow& r) {
    return r.id == kNoNode ? folded_cells(ctx, *cols, folds[r.fold].first, folds[r.fold].second, r.depth)
                           : node_cells(ctx, d, *cols, r.id, r.depth);
  };
  Table t = tree_table(*cols);
  for (const TreeRow& r : rows) t.measure(cells(r));
  const bool callees = ctx.options().view == View::CalleesOf;
  write_header(out, ctx, callees ? "callees of " + escape_text(ctx.options().function) : std::string("call tree"));
  t.render_titles(out, 0, ctx.options().width);
  for (const TreeRow& r : rows) t.render_row(out, cells(r));
  write_hidden_footer(out, folded, "subtree", ctx.options().percent_limit);
  return Ok{};
}

}  // namespace callprof

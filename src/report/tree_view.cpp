// The calling context tree as a table, children ordered by a column, names indented by
// depth. With a filter: matching nodes, their ancestors and their subtrees. Children below
// the percent limit fold into one row per parent, so totals stay readable at every level.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "graph/node_filter.h"
#include "report/columns.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"
#include "util/parallel.h"

namespace callprof {
namespace {

// Indentation stops growing here so a deep recursion cannot produce megabyte lines;
// the level column still gives the true depth.
constexpr size_t kMaxIndentLevels = 64;

// The tree with its per-node quantities: recursion levels from the context, and `cum`,
// the subtree totals of only the metrics the view reads (see totals_read).
struct NodeData {
  const CallTree& tree;
  const MetricTable& cum;
  const std::vector<uint32_t>& level;
};

// How siblings are ordered: by a column's value, largest first, ties by total wall time
// and then by name; or by name alone (no column).
struct NodeOrder {
  const MetricColumnDef* column = nullptr;
};

Result<NodeOrder> node_order(std::string key) {
  if (key.empty() || key == "cum") key = "total";
  if (key == "base") key = "self";
  if (key == "name") return NodeOrder{};
  if (const MetricColumnDef* column = find_metric_column(key)) return NodeOrder{column};
  return make_error(
      fmt::format("unknown sort column '{}' for the tree view (valid: {}, name; "
                  "base and cum are aliases of self and total)",
                  escape_text(key), metric_column_keys()));
}

// A child with its sort values, computed once per child rather than at every comparison.
struct KeyedNode {
  uint64_t value;
  uint64_t wall;
  NodeId id;
};

void sort_children(const ReportContext& ctx, const NodeData& d, NodeOrder order, std::vector<NodeId>& kids,
                   std::vector<KeyedNode>& keyed) {
  if (kids.size() < 2) return;
  auto by_name = [&](NodeId a, NodeId b) {
    const std::string_view na = ctx.name(d.tree.node(a).function);
    const std::string_view nb = ctx.name(d.tree.node(b).function);
    return na != nb ? na < nb : a < b;
  };
  if (!order.column) {
    std::sort(kids.begin(), kids.end(), by_name);
    return;
  }
  keyed.clear();
  for (NodeId k : kids) keyed.push_back({order.column->value(d.tree.base(k), d.cum[k]), d.cum[k][Metric::WallNs], k});
  std::sort(keyed.begin(), keyed.end(), [&](const KeyedNode& a, const KeyedNode& b) {
    if (a.value != b.value) return a.value > b.value;
    return a.wall != b.wall ? a.wall > b.wall : by_name(a.id, b.id);
  });
  for (size_t i = 0; i < kids.size(); ++i) kids[i] = keyed[i].id;
}

using Columns = std::vector<const MetricColumnDef*>;

// The totals the view reads: wall time (ties, the folded rows) and those of the shown
// columns and the sort column. The analysis's cum table has every metric, min and max
// copied too: 72 MB on a million-node exact profile where the default columns read 8.
std::vector<Metric> totals_read(const Columns& shown, const MetricColumnDef* sort) {
  std::vector<Metric> metrics{Metric::WallNs};
  for (const MetricColumnDef* c : shown)
    if (c->total_metric != Metric::kCount) metrics.push_back(c->total_metric);
  if (sort && sort->total_metric != Metric::kCount) metrics.push_back(sort->total_metric);
  return metrics;
}

Table tree_table(const Columns& shown) {
  std::vector<Column> cols = {{"level"}, {"rec"}};
  for (const MetricColumnDef* c : shown) cols.push_back({std::string(c->title)});
  cols.push_back({"function", Align::Left});
  return Table(std::move(cols));
}

// The numeric cells of every row (all but the function), formatted once: measured as
// they are made, written after the titles. A million rows' cells take ~50 MB; formatting
// them twice took longer than the rest of the view. Rows are read back in order, so a
// cell's length (a formatted number: under 256 bytes) is all that is kept beside its text.
class RowCells {
 public:
  // Room for `rows` rows of `per_row` cells: growing by doubling would copy them and fault
  // in twice the memory (most of this view's time on a million rows).
  RowCells(size_t rows, size_t per_row) {
    text_.reserve(rows * per_row * 6);
    lengths_.reserve(rows * per_row);
  }
  void add(std::string_view cell) {
    const size_t len = std::min<size_t>(cell.size(), UINT8_MAX);
    text_.append(cell.data(), len);
    lengths_.push_back(uint8_t(len));
  }
  // Where reading has got to: the next cell and its first byte.
  struct Cursor {
    size_t cell = 0, byte = 0;
  };
  // The next `per_row` cells, in order, appended to `out`.
  void next_row(size_t per_row, Cursor& at, std::vector<std::string_view>& out) const {
    for (size_t c = 0; c < per_row; ++c) {
      const size_t len = lengths_[at.cell++];
      out.push_back(std::string_view(text_).substr(at.byte, len));
      at.byte += len;
    }
  }

 private:
  std::string text_;
  std::vector<uint8_t> lengths_;
};

void add_node_cells(const ReportContext& ctx, const NodeData& d, const Columns& cols, NodeId id, size_t depth,
                    RowCells& cells) {
  cells.add(std::to_string(depth));
  cells.add(std::to_string(d.level[id]));
  for (const MetricColumnDef* c : cols) cells.add(column_cell(ctx, *c, d.tree.base(id), d.cum[id]));
}

// The children of one parent that fell below the limit, as one row: their summed total.
void add_folded_cells(const ReportContext& ctx, const Columns& cols, const Metrics& total, size_t depth,
                      RowCells& cells) {
  cells.add(std::to_string(depth));
  cells.add("");
  for (const MetricColumnDef* c : cols)
    cells.add(c->key == "total" || c->key == "total%" ? column_cell(ctx, *c, Metrics(), total) : "");
}

// The function cell, into `cell`: indented by depth. An inlined frame is its function all
// the same (flat and callers views add it up with its calls); the tree says where the
// compiler inlined it.
void node_name(const ReportContext& ctx, const NodeData& d, NodeId id, size_t depth, std::string& cell) {
  cell.assign(2 * (std::min(depth, kMaxIndentLevels) - 1), ' ');
  cell += ctx.name(d.tree.node(id).function);
  if (d.tree.node(id).inlined) cell += " [inlined]";
}

void folded_name(const ReportContext& ctx, size_t count, size_t depth, std::string& cell) {
  cell.assign(2 * (std::min(depth, kMaxIndentLevels) - 1), ' ');
  cell += fmt::format("[{} more below {:g} %]", count, ctx.options().percent_limit);
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
size_t walk_tree(const ReportContext& ctx, const NodeData& d, NodeOrder order, const std::vector<bool>& shown,
                 std::vector<TreeRow>& rows, std::vector<std::pair<Metrics, size_t>>& folds) {
  const size_t limit = ctx.options().limit;
  const double floor = double(ctx.grand_total_ns()) * ctx.options().percent_limit / 100.0;
  size_t folded = 0;
  // Depth-first with an explicit stack: recursion can make the tree arbitrarily deep. A
  // node id of kNoNode on the stack stands for the folded row of the parent below it.
  std::vector<TreeRow> stack{{kRootNode, 0, 0}};
  std::vector<NodeId> kids;
  std::vector<KeyedNode> keyed;
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
    sort_children(ctx, d, order, kids, keyed);
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

// The rows in blocks: each block's numeric cells are formatted and measured, then, after
// the titles, its lines are made and written, one block per core at a time (a million rows
// with --percent-limit 0 took 1.1 s on one core). Only the numeric cells are kept between
// the two passes.
constexpr size_t kBlockRows = 1 << 13;

struct RowBlock {
  size_t begin = 0, end = 0;  // rows[begin, end)
  std::optional<RowCells> cells;
};

Status render_tree(const ReportContext& ctx, std::ostream& out) {
  auto order = node_order(ctx.options().sort);
  if (!order) return order.error();
  auto cols = shown_columns(ctx, TableKind::Tree);
  if (!cols) return cols.error();
  const MetricTable totals = cumulative(ctx.tree(), totals_read(*cols, order->column));
  const NodeData d{ctx.tree(), totals, ctx.levels()};
  const std::vector<bool> shown = select_nodes(ctx.tree(), [&](FunctionId f) { return ctx.matches(f); });
  std::vector<TreeRow> rows;
  rows.reserve(ctx.tree().size());  // an upper bound, touched only as far as it is used
  std::vector<std::pair<Metrics, size_t>> folds;
  const size_t folded = walk_tree(ctx, d, *order, shown, rows, folds);

  const size_t per_row = cols->size() + 2;
  std::vector<RowBlock> blocks((rows.size() + kBlockRows - 1) / kBlockRows);
  std::vector<Table> measured(blocks.size(), tree_table(*cols));
  parallel_for(blocks.size(), [&](size_t b) {
    RowBlock& block = blocks[b];
    block.begin = b * kBlockRows;
    block.end = std::min(rows.size(), block.begin + kBlockRows);
    // Built here and moved into place at the end: two cores appending to neighbouring
    // blocks' buffers through headers on one cache line slowed each other down.
    RowCells cells(block.end - block.begin, per_row);
    std::vector<std::string_view> row;
    RowCells::Cursor at;
    for (size_t r = block.begin; r < block.end; ++r) {
      const TreeRow& tr = rows[r];
      if (tr.id == kNoNode)
        add_folded_cells(ctx, *cols, folds[tr.fold].first, tr.depth, cells);
      else
        add_node_cells(ctx, d, *cols, tr.id, tr.depth, cells);
      row.clear();
      cells.next_row(per_row, at, row);
      measured[b].measure(row);
    }
    block.cells.emplace(std::move(cells));
  });
  Table t = tree_table(*cols);
  for (const Table& m : measured) t.measure(m);

  const bool callees = ctx.options().view == View::CalleesOf;
  write_header(out, ctx, callees ? "callees of " + escape_text(ctx.options().function) : std::string("call tree"));
  t.render_titles(out, 0, ctx.options().width);
  const size_t wave = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> texts(wave);  // one block's lines per core, kept from wave to wave
  for (size_t first = 0; first < blocks.size(); first += wave) {
    const size_t count = std::min(wave, blocks.size() - first);
    parallel_for(count, [&](size_t i) {
      RowBlock& block = blocks[first + i];
      std::string text = std::move(texts[i]);  // here, not in the vector beside the other core's
      Table::RowBuffers buffers;
      std::vector<std::string_view> row;
      std::string name;
      RowCells::Cursor at;
      for (size_t r = block.begin; r < block.end; ++r) {
        const TreeRow& tr = rows[r];
        if (tr.id == kNoNode)
          folded_name(ctx, folds[tr.fold].second, tr.depth, name);
        else
          node_name(ctx, d, tr.id, tr.depth, name);
        row.clear();
        block.cells->next_row(per_row, at, row);
        row.push_back(name);
        t.render_row(text, row, buffers);
      }
      block.cells.reset();
      texts[i] = std::move(text);
    });
    for (size_t i = 0; i < count; ++i) {
      out.write(texts[i].data(), std::streamsize(texts[i].size()));
      texts[i].clear();
    }
  }
  write_hidden_footer(out, folded, "subtree", ctx.options().percent_limit);
  return Ok{};
}

}  // namespace callprof

// The one column-aligned table renderer behind every text view. Cells are escaped here,
// so no untrusted text reaches the terminal unescaped whatever a view puts in a cell.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace callprof {

enum class Align { Left, Right };

struct Column {
  std::string title;
  Align align = Align::Right;
};

class Table {
 public:
  explicit Table(std::vector<Column> columns);

  // A row of cells, one per column (missing cells are empty).
  void add_row(std::vector<std::string> cells);
  // A horizontal rule across the table (stanza separator).
  void add_rule();
  size_t rows() const { return rows_.size(); }
  // Key/value blocks have no title line.
  void hide_titles() { titles_ = false; }

  // Columns are separated by two spaces; the last column is never padded so long
  // names do not widen the table; `indent` spaces precede every line. With a `width`,
  // the last column is cut (ending in "…") so that lines fit in that many columns.
  void render(std::ostream& out, size_t indent = 0, size_t width = 0) const;

  // Streaming, for views of a million rows: the view gives every row's cells to
  // `measure` (widths only, nothing kept; tables measuring parts of the rows in parallel
  // are joined with `measure(other)`), writes the titles with `render_titles`, then each
  // row with `render_row`, which appends its line to a string (one RowBuffers per thread
  // writing rows). The output is render()'s for the same rows.
  void measure(std::span<const std::string_view> cells);
  void measure(const Table& other);
  void render_titles(std::ostream& out, size_t indent = 0, size_t width = 0);
  struct RowBuffers {
    std::vector<std::string> escaped;
    std::vector<std::string_view> views;
  };
  void render_row(std::string& out, std::span<const std::string_view> cells, RowBuffers& buffers) const;

 private:
  // The layout render() and render_row() share, fixed by the widths measured so far.
  struct Layout {
    std::vector<size_t> width;
    std::string margin;
    std::vector<std::string> titles;  // escaped
    size_t total = 0;                 // every column's width and the separators
    size_t last_width = 0;            // 0: the last column is not cut
    size_t rule = 0;                  // a rule row's length: the table's, within 120 and the width
  };
  Layout layout(size_t indent, size_t max_width) const;
  // One line, appended to `out`.
  void emit(std::string& out, const Layout& l, std::span<const std::string_view> cells) const;
  void emit_titles(std::ostream& out, const Layout& l) const;

  // A row is stored as its escaped cells joined by '\0' (escaping removes every NUL from
  // the text), one allocation per row: views of a million-node tree stay affordable.
  struct Row {
    bool rule = false;
    std::string cells;
  };
  std::vector<Column> columns_;
  std::vector<size_t> width_;  // display width per column so far
  std::vector<Row> rows_;
  bool titles_ = true;
  Layout stream_;  // render_titles' layout, for render_row
};

}  // namespace callprof

// Table rendering: widths from escaped cells, measured in code points (µ is one column).
#include "report/table.h"

#include <algorithm>

#include "query/names.h"
#include "report/text.h"

namespace callprof {
namespace {

// Printable ASCII (numbers, most names) is its own escaped form, one column per byte.
bool plain_ascii(std::string_view s) { return printable_ascii_prefix(s) == s.size(); }

void write_text(std::ostream& out, const std::string& text) { out.write(text.data(), std::streamsize(text.size())); }

}  // namespace

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)), width_(columns_.size(), 0) {}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  Row row;
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string cell = escape_text(cells[c]);
    width_[c] = std::max(width_[c], display_width(cell));
    if (c) row.cells += '\0';
    row.cells += cell;
  }
  rows_.push_back(std::move(row));
}

void Table::add_rule() { rows_.push_back(Row{true, {}}); }

Table::Layout Table::layout(size_t indent, size_t max_width) const {
  const size_t n = columns_.size();
  Layout l{width_, std::string(indent, ' '), {}, 0, 0, 0};
  for (const Column& c : columns_) l.titles.push_back(escape_text(c.title));
  if (titles_)
    for (size_t c = 0; c < n; ++c) l.width[c] = std::max(l.width[c], display_width(l.titles[c]));
  for (size_t c = 0; c < n; ++c) l.total += l.width[c] + (c ? 2 : 0);
  // What is left for the last column; never less than a few characters of the name.
  constexpr size_t kMinLastColumn = 12;
  const size_t before_last = n ? indent + l.total - l.width[n - 1] : 0;
  if (max_width) l.last_width = std::max(kMinLastColumn, max_width > before_last ? max_width - before_last : 0);
  l.rule = std::min<size_t>(l.total, 120);
  if (max_width) l.rule = std::min(l.rule, max_width > indent ? max_width - indent : 0);
  return l;
}

void Table::emit_titles(std::ostream& out, const Layout& l) const {
  if (!titles_) return;
  std::string line;
  emit(line, l, std::vector<std::string_view>(l.titles.begin(), l.titles.end()));
  write_text(out, line);
}

void Table::emit(std::string& line, const Layout& l, std::span<const std::string_view> cells) const {
  const size_t n = columns_.size();
  const size_t start = line.size();
  line += l.margin;
  for (size_t c = 0; c < n; ++c) {
    std::string_view cell = cells[c];
    std::string cut;
    const bool last = c + 1 == n;
    if (last && l.last_width && display_width(cell) > l.last_width) cell = cut = fit_width(cell, l.last_width);
    if (c) line += "  ";
    // The last column is not padded on the left; its width is never measured.
    if (last && columns_[c].align == Align::Left) {
      line += cell;
      break;
    }
    const size_t shown = display_width(cell);
    const size_t pad = l.width[c] > shown ? l.width[c] - shown : 0;
    if (columns_[c].align == Align::Right) line.append(pad, ' ');
    line += cell;
    if (columns_[c].align == Align::Left && !last) line.append(pad, ' ');
  }
  while (line.size() > start && line.back() == ' ') line.pop_back();
  line += '\n';
}

void Table::render(std::ostream& out, size_t indent, size_t max_width) const {
  const size_t n = columns_.size();
  const Layout l = layout(indent, max_width);
  emit_titles(out, l);
  std::vector<std::string_view> cells(n);
  std::string line;
  for (const Row& r : rows_) {
    if (r.rule) {
      out << l.margin << std::string(l.rule, '-') << '\n';
      continue;
    }
    std::string_view rest = r.cells;
    for (size_t c = 0; c < n; ++c) {
      const size_t end = std::min(rest.find('\0'), rest.size());
      cells[c] = rest.substr(0, end);
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    line.clear();
    emit(line, l, cells);
    write_text(out, line);
  }
}

// The last column is never padded: its width matters to no line, so it is not measured.
void Table::measure(std::span<const std::string_view> cells) {
  for (size_t c = 0; c + 1 < columns_.size() && c < cells.size(); ++c) {
    const size_t w = plain_ascii(cells[c])       ? cells[c].size()
                     : is_escaped_text(cells[c]) ? display_width(cells[c])
                                                 : display_width(escape_text(cells[c]));
    if (w > width_[c]) width_[c] = w;  // no store otherwise: tables measured side by side stay apart
  }
}

void Table::measure(const Table& other) {
  for (size_t c = 0; c < width_.size() && c < other.width_.size(); ++c)
    width_[c] = std::max(width_[c], other.width_[c]);
}

void Table::render_titles(std::ostream& out, size_t indent, size_t max_width) {
  stream_ = layout(indent, max_width);
  emit_titles(out, stream_);
}

void Table::render_row(std::string& out, std::span<const std::string_view> cells, RowBuffers& buffers) const {
  buffers.escaped.resize(columns_.size());
  buffers.views.resize(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (c < cells.size() && is_escaped_text(cells[c])) {
      buffers.views[c] = cells[c];
      continue;
    }
    buffers.escaped[c] = c < cells.size() ? escape_text(cells[c]) : std::string();
    buffers.views[c] = buffers.escaped[c];
  }
  emit(out, stream_, buffers.views);
}

}  // namespace callprof

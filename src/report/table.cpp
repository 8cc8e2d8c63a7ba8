// Table rendering: widths from escaped cells, measured in code points (µ is one column).
#include "report/table.h"

#include <algorithm>

#include "query/names.h"
#include "report/text.h"

namespace callprof {

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

void Table::render(std::ostream& out, size_t indent, size_t max_width) const {
  const size_t n = columns_.size();
  std::vector<size_t> width = width_;
  std::vector<std::string> titles;
  for (size_t c = 0; c < n; ++c) {
    titles.push_back(escape_text(columns_[c].title));
    if (titles_) width[c] = std::max(width[c], display_width(titles.back()));
  }
  size_t total = 0;
  for (size_t c = 0; c < n; ++c) total += width[c] + (c ? 2 : 0);
  const std::string margin(indent, ' ');
  // What is left for the last column; never less than a few characters of the name.
  constexpr size_t kMinLastColumn = 12;
  const size_t before_last = n ? indent + total - width[n - 1] : 0;
  const size_t last_width = max_width ? std::max(kMinLastColumn, max_width > before_last ? max_width - before_last : 0) : 0;
  std::string line;
  auto emit = [&](auto cell_at) {
    line = margin;
    for (size_t c = 0; c < n; ++c) {
      std::string_view cell = cell_at(c);
      std::string cut;
      if (c + 1 == n && last_width && display_width(cell) > last_width) cell = cut = fit_width(cell, last_width);
      const size_t pad = width[c] - display_width(cell);
      if (c) line += "  ";
      if (columns_[c].align == Align::Right) line.append(pad, ' ');
      line += cell;
      if (columns_[c].align == Align::Left && c + 1 < n) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  if (titles_) emit([&](size_t c) { return std::string_view(titles[c]); });
  for (const Row& r : rows_) {
    if (r.rule) {
      out << margin << std::string(std::min<size_t>(total, 120), '-') << '\n';
      continue;
    }
    std::vector<std::string_view> cells;
    std::string_view rest = r.cells;
    for (size_t c = 0; c < n; ++c) {
      const size_t end = std::min(rest.find('\0'), rest.size());
      cells.push_back(rest.substr(0, end));
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    emit([&](size_t c) { return cells[c]; });
  }
}

}  // namespace callprof

// Table rendering: widths from escaped cells, measured in code points (µ is one column).
#include "report/table.h"

#include <algorithm>

#include "report/text.h"

namespace callprof {

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  for (std::string& c : cells) c = escape_text(c);
  rows_.push_back(Row{false, std::move(cells)});
}

void Table::add_rule() { rows_.push_back(Row{true, {}}); }

void Table::render(std::ostream& out, size_t indent) const {
  const size_t n = columns_.size();
  std::vector<size_t> width(n, 0);
  for (size_t c = 0; c < n && titles_; ++c) width[c] = display_width(escape_text(columns_[c].title));
  for (const Row& r : rows_)
    for (size_t c = 0; c < n && !r.rule; ++c) width[c] = std::max(width[c], display_width(r.cells[c]));
  size_t total = 0;
  for (size_t c = 0; c < n; ++c) total += width[c] + (c ? 2 : 0);
  const std::string margin(indent, ' ');
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = margin;
    for (size_t c = 0; c < n; ++c) {
      if (c) s += "  ";
      const size_t pad = width[c] - display_width(cells[c]);
      const bool last = c + 1 == n;
      if (columns_[c].align == Align::Right) s.append(pad, ' ');
      s += cells[c];
      if (columns_[c].align == Align::Left && !last) s.append(pad, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  std::vector<std::string> titles;
  for (const Column& col : columns_) titles.push_back(escape_text(col.title));
  if (titles_) line(titles);
  for (const Row& r : rows_) {
    if (r.rule) out << margin << std::string(std::min<size_t>(total, 120), '-') << '\n';
    else line(r.cells);
  }
}

}  // namespace callprof

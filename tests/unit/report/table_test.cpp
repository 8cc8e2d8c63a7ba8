// The shared table renderer: alignment, unit-aware widths, rules, escaping.
#include "report/table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace callprof {
namespace {

std::string render(const Table& t, size_t indent = 0) {
  std::ostringstream out;
  t.render(out, indent);
  return out.str();
}

TEST(Table, AlignsRightNumbersAndLeftNamesWithoutPaddingTheLast) {
  Table t({{"calls"}, {"self"}, {"mod", Align::Left}, {"name", Align::Left}});
  t.add_row({"1", "1.00µs", "libc.so", "memcpy"});
  t.add_row({"12345", "950ns", "a", "f"});
  EXPECT_EQ(render(t),
            "calls    self  mod      name\n"
            "    1  1.00µs  libc.so  memcpy\n"
            "12345   950ns  a        f\n");
}

TEST(Table, RulesIndentMissingCellsAndHiddenTitles) {
  Table t({{"k", Align::Left}, {"v", Align::Left}});
  t.add_row({"key", "value"});
  t.add_rule();
  t.add_row({"x"});
  EXPECT_EQ(render(t, 2), "  k    v\n  key  value\n  ----------\n  x\n");
  t.hide_titles();
  EXPECT_EQ(render(t).substr(0, 11), "key  value\n");
}

TEST(Table, RulesFitTheWidth) {
  Table t({{"a"}, {"b"}, {"name", Align::Left}});
  t.add_row({std::string(60, '1'), std::string(60, '2'), "f"});
  t.add_rule();
  std::ostringstream wide, narrow;
  t.render(wide, 0, 0);
  t.render(narrow, 2, 50);
  EXPECT_NE(wide.str().find("\n" + std::string(120, '-') + "\n"), std::string::npos) << "at most 120";
  EXPECT_NE(narrow.str().find("\n  " + std::string(48, '-') + "\n"), std::string::npos) << narrow.str();
}

TEST(Table, CellsAreEscapedSoNamesCannotBreakRows) {
  Table t({{"n"}, {"name", Align::Left}});
  t.add_row({"1", "evil\nname\x1b[2J"});
  const std::string s = render(t);
  EXPECT_EQ(s, "n  name\n1  evil\\nname\\x1b[2J\n");
  EXPECT_EQ(s.find('\x1b'), std::string::npos);
}

// A view of a million rows measures them in parts (one table per part), joins the widths
// and writes each row itself: the lines are render()'s, escaping and the cut included.
TEST(Table, StreamedRowsAreRendersLines) {
  const std::vector<std::vector<std::string_view>> rows = {
      {"1", "1.00µs", "main"}, {"12345", "950ns", "evil\nname\x1b[2J"}, {"7", "", "HttpWorker<…>::a_rather_long_name"}};
  std::vector<Column> columns = {{"calls"}, {"self"}, {"function", Align::Left}};
  for (size_t width : {0, 24}) {
    Table whole(columns);
    for (const auto& r : rows) whole.add_row(std::vector<std::string>(r.begin(), r.end()));
    std::ostringstream expected;
    whole.render(expected, 0, width);

    Table streamed(columns), first(columns), second(columns);
    first.measure(rows[0]);
    for (size_t i = 1; i < rows.size(); ++i) second.measure(rows[i]);
    streamed.measure(first);
    streamed.measure(second);
    std::ostringstream out;
    streamed.render_titles(out, 0, width);
    std::string lines;
    Table::RowBuffers buffers;
    for (const auto& r : rows) streamed.render_row(lines, r, buffers);
    EXPECT_EQ(out.str() + lines, expected.str()) << "width " << width;
  }
}

}  // namespace
}  // namespace callprof

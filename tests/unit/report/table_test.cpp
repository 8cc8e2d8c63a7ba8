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

TEST(Table, CellsAreEscapedSoNamesCannotBreakRows) {
  Table t({{"n"}, {"name", Align::Left}});
  t.add_row({"1", "evil\nname\x1b[2J"});
  const std::string s = render(t);
  EXPECT_EQ(s, "n  name\n1  evil\\nname\\x1b[2J\n");
  EXPECT_EQ(s.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace callprof

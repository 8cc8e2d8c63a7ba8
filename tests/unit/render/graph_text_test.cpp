// The call graph's text helpers: untrusted names made inert and short, DOT quoting, units.
#include "render/graph_text.h"

#include <gtest/gtest.h>

namespace callprof {
namespace {

TEST(GraphText, ControlCharactersAndBadBytesBecomeVisibleEscapes) {
  EXPECT_EQ(safe_text("a\nb\x1b[31mc", 100), "a\\nb\\x1b[31mc");
  EXPECT_EQ(safe_text("bad\xff", 100), "bad\\xff");
  EXPECT_EQ(safe_text("rtl\u202Eevil", 100), "rtl\\u202eevil");
  // XML forbids U+FFFE and U+FFFF even as character references.
  EXPECT_EQ(safe_text("x\uFFFFy\uFFFE", 100), "x\\uffffy\\ufffe");
  EXPECT_EQ(safe_text("ünïcödé", 100), "ünïcödé");
}

TEST(GraphText, LongNamesKeepTheirStartAndEnd) {
  EXPECT_EQ(safe_text("abcdefghij", 10), "abcdefghij");
  EXPECT_EQ(safe_text("abcdefghijk", 10), "abcd…ghijk");
  // Code points, not bytes: a multi-byte character is never cut.
  EXPECT_EQ(safe_text("ééééééééééé", 5), "éé…éé");
  const std::string huge(10000, 'x');
  EXPECT_EQ(safe_text(huge, 60), std::string(29, 'x') + "…" + std::string(30, 'x'));
}

TEST(GraphText, DotEscapingLeavesNothingForGraphvizToInterpret) {
  EXPECT_EQ(dot_escape(R"(say "hi")"), R"(say \"hi\")");
  EXPECT_EQ(dot_escape(R"(\N \G \n)"), R"(\\N \\G \\n)");
  EXPECT_EQ(dot_escape("a&amp;b"), "a&amp;amp;b");
  // Entities: Graphviz shows them as the characters (and escapes them again in SVG), and the
  // DOT text itself carries no markup for a tool that would paste it into a page.
  EXPECT_EQ(dot_escape("<script>"), "&lt;script&gt;");
}

TEST(GraphText, HtmlLabelEscapingLeavesNoMarkup) {
  EXPECT_EQ(html_label_escape(R"(<td>"x"</td> &amp; \N)"), R"(&lt;td&gt;&quot;x&quot;&lt;/td&gt; &amp;amp; \N)");
  EXPECT_EQ(html_label_escape("></table>>"), "&gt;&lt;/table&gt;&gt;");
}

TEST(GraphText, Units) {
  EXPECT_EQ(format_duration(0), "0");
  EXPECT_EQ(format_duration(950), "950ns");
  EXPECT_EQ(format_duration(1234), "1.23µs");
  EXPECT_EQ(format_duration(12345678), "12.3ms");
  EXPECT_EQ(format_duration(999960), "1.00ms");
  EXPECT_EQ(format_duration(4560000000), "4.56s");
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1234567), "1,234,567");
  EXPECT_EQ(format_share(1, 3), "33.3%");
  EXPECT_EQ(format_share(1, 200), "0.50%");
  EXPECT_EQ(format_share(1, 1000000), "<0.01%");
  EXPECT_EQ(format_share(0, 10), "0%");
  EXPECT_EQ(format_share(1, 0), "-");
}

}  // namespace
}  // namespace callprof

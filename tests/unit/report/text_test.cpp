// Escaping of untrusted text and the unit formats of every column.
#include "report/text.h"

#include <gtest/gtest.h>

#include "model/metrics.h"

namespace callprof {
namespace {

using namespace std::string_literals;

TEST(EscapeText, ControlCharactersBecomeEscapes) {
  EXPECT_EQ(escape_text("a\nb"), "a\\nb");
  EXPECT_EQ(escape_text("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(escape_text("t\tr\r"), "t\\tr\\r");
  EXPECT_EQ(escape_text("del\x7f"), "del\\x7f");
  EXPECT_EQ(escape_text("nul\0x"s), "nul\\x00x");
}

TEST(EscapeText, C1ControlsBidiOverridesAndInvalidUtf8) {
  EXPECT_EQ(escape_text("csi\xc2\x9b"
                        "31m"),
            "csi\\u009b31m");
  EXPECT_EQ(escape_text("abc\xe2\x80\xae"
                        "def"),
            "abc\\u202edef");
  EXPECT_EQ(escape_text("bad\xff"), "bad\\xff");
  EXPECT_EQ(escape_text("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(escape_text("cut\xe2\x82"), "cut\\xe2\\x82");     // truncated sequence
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
}

TEST(EscapeText, OrdinaryTextIsUnchangedAndEscapingIsIdempotent) {
  const std::string names[] = {"std::vector<int>::push_back(int&&)", "µs", "日本語", "a b"};
  for (const std::string& n : names) EXPECT_EQ(escape_text(n), n);
  const std::string once = escape_text("x\n\x1b\xff");
  EXPECT_EQ(escape_text(once), once);
}

TEST(DisplayWidth, CountsCodePoints) {
  EXPECT_EQ(display_width("1.00µs"), 6u);
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width(""), 0u);
}

TEST(FormatNs, ThreeSignificantDigitsAndUnits) {
  EXPECT_EQ(format_ns(0), "0");
  EXPECT_EQ(format_ns(999), "999ns");
  EXPECT_EQ(format_ns(1000), "1.00µs");
  EXPECT_EQ(format_ns(1234), "1.23µs");
  EXPECT_EQ(format_ns(12345), "12.3µs");
  EXPECT_EQ(format_ns(123456), "123µs");
  EXPECT_EQ(format_ns(999499), "999µs");
  EXPECT_EQ(format_ns(999500), "1.00ms");
  EXPECT_EQ(format_ns(9999000), "10.0ms");
  EXPECT_EQ(format_ns(1000000000), "1.00s");
  EXPECT_EQ(format_ns(1234000000000), "1234s");
  EXPECT_EQ(format_ns(Metrics::kUnset), "-");
}

TEST(FormatOther, PercentMillisecondsBaseName) {
  EXPECT_EQ(format_pct(1, 3), "33.33%");
  EXPECT_EQ(format_pct(3, 4), "75.00%");
  EXPECT_EQ(format_pct(5, 0), "-");
  EXPECT_EQ(format_ms(1500000), "1.500ms");
  EXPECT_EQ(format_ms(-2000), "-0.002ms");
  EXPECT_EQ(base_name("/usr/lib/libc.so.6"), "libc.so.6");
  EXPECT_EQ(base_name("a.out"), "a.out");
}

}  // namespace
}  // namespace callprof

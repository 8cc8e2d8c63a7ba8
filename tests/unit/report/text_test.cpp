// Escaping of untrusted text and the unit formats of every column.
#include "report/text.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

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

TEST(EscapeText, IsEscapedTextSaysWhetherEscapingChangesAnything) {
  const std::string texts[] = {"",
                               "plain",
                               "HttpWorker<…>::run",
                               "µs",
                               "日本語",
                               "a\nb",
                               "\x1b[2J",
                               "del\x7f",
                               "nul\0x"s,
                               "csi\xc2\x9b",
                               "abc\xe2\x80\xae",
                               "\xe2\x80\x8e",
                               "bad\xff",
                               "\xc0\xaf",
                               "cut\xe2\x82",
                               "\xed\xa0\x80",
                               "\xf4\x90\x80\x80",
                               "\xf0\x9f\x98\x80"};
  for (const std::string& t : texts) EXPECT_EQ(is_escaped_text(t), escape_text(t) == t) << escape_text(t);
}

// The prefix is scanned eight bytes at a time: an unsafe byte is found at every position
// of a word, and the bytes around the printable range's edges are told apart.
TEST(EscapeText, PrintableAsciiPrefixStopsAtTheFirstUnsafeByte) {
  for (const char unsafe : {'\x00', '\x1f', '\x7f', '\x80', '\xc2', '\xff'})
    for (size_t at = 0; at < 40; ++at) {
      std::string s(40, 'a');
      s[at] = unsafe;
      EXPECT_EQ(printable_ascii_prefix(s), at) << int(unsafe) << " at " << at;
    }
  EXPECT_EQ(printable_ascii_prefix(std::string(37, ' ') + "~"), 38u);
  EXPECT_EQ(printable_ascii_prefix(""), 0u);
}

TEST(DisplayWidth, CountsCodePoints) {
  EXPECT_EQ(display_width("1.00µs"), 6u);
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width(""), 0u);
}

TEST(DisplayWidth, PrefixTakesWholeCodePoints) {
  EXPECT_EQ(display_prefix("1.00µs", 4), 4u);
  EXPECT_EQ(display_prefix("1.00µs", 5), 6u) << "µ is two bytes, one column";
  EXPECT_EQ(display_prefix("1.00µs", 9), 7u) << "narrower than asked: all of it";
  EXPECT_EQ(display_prefix("", 3), 0u);
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

// format_ns and format_pct round as fmt's "{:.Nf}" does (what they used before they moved
// to std::to_chars for speed): the same text for values drawn across every unit.
TEST(FormatNs, RoundsAsFmtDoes) {
  auto reference = [](uint64_t ns) {
    if (ns < 1000) return fmt::format("{}ns", ns);
    static constexpr const char* kUnits[] = {"µs", "ms", "s"};
    double v = double(ns) / 1e3;
    size_t unit = 0;
    while (unit < 2 && v >= 999.5) v /= 1e3, ++unit;
    if (v < 9.995) return fmt::format("{:.2f}{}", v, kUnits[unit]);
    if (v < 99.95) return fmt::format("{:.1f}{}", v, kUnits[unit]);
    return fmt::format("{:.0f}{}", v, kUnits[unit]);
  };
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t ns = 1 + (rng() >> (rng() % 64));
    ASSERT_EQ(format_ns(ns), reference(ns)) << ns;
  }
  for (uint64_t ns : {1005ull, 1015ull, 9995ull, 99950ull, 999500ull, 1000500ull, 2500000000ull})
    EXPECT_EQ(format_ns(ns), reference(ns)) << ns;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t whole = 1 + (rng() >> (rng() % 64)), part = whole ? rng() % whole : 0;
    ASSERT_EQ(format_pct(part, whole), fmt::format("{:.2f}%", 100.0 * double(part) / double(whole)));
  }
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

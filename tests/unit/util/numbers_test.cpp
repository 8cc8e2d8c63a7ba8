// Numbers and durations typed by users: what each parser accepts, and that every refusal
// is one line. The CLI's use of them is in tests/cli (NumbersAndDurations).
#include "util/numbers.h"

#include <gtest/gtest.h>

namespace callprof {
namespace {

void expect_refused(const Result<uint64_t>& r, std::string_view text) {
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

TEST(ParseCount, DigitsInRangeOnly) {
  EXPECT_EQ(parse_count("0", 0, 10).value(), 0u);
  EXPECT_EQ(parse_count("18446744073709551615", 0, UINT64_MAX).value(), UINT64_MAX);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1e3", "0x10", "2^64", "1.0", "nan", "inf",
                          "18446744073709551616", "99999999999999999999999"})
    expect_refused(parse_count(bad, 0, UINT64_MAX), bad);
  expect_refused(parse_count("11", 0, 10), "11");
  expect_refused(parse_count("3", 4, 10), "3");
  EXPECT_NE(parse_count("2^64", 0, 5).error().message.find("'2^64' is not a whole number (expected 0 to 5)"),
            std::string::npos);
}

TEST(ParseReal, FiniteDecimalsInRange) {
  EXPECT_DOUBLE_EQ(parse_real("0.5", 0, 1).value(), 0.5);
  EXPECT_DOUBLE_EQ(parse_real("5e-3", 0, 1).value(), 0.005);
  EXPECT_DOUBLE_EQ(parse_real("100", 0, 100).value(), 100);
  for (const char* bad :
       {"", "nan", "NaN", "inf", "-inf", "infinity", "0x1p3", "1e", ".", "1,5", "1e999", "101", "-0.1"})
    EXPECT_FALSE(parse_real(bad, 0, 100).ok()) << bad;
}

TEST(ParseSeconds, PositiveFiniteAndAtMostAYear) {
  EXPECT_EQ(parse_seconds_ns("1.5", false).value(), 1'500'000'000);
  EXPECT_EQ(parse_seconds_ns("0", true).value(), 0);
  for (const char* bad : {"0", "0.0000000001", "-1", "nan", "inf", "1e10", "1e30", "", "1s"})
    EXPECT_FALSE(parse_seconds_ns(bad, false).ok()) << bad;
  EXPECT_NE(parse_seconds_ns("1e10", false).error().message.find("out of range"), std::string::npos);
}

TEST(ParseDuration, UnitsAndRange) {
  EXPECT_EQ(parse_duration_ns("250").value(), 250u);
  EXPECT_EQ(parse_duration_ns("10us").value(), 10'000u);
  EXPECT_EQ(parse_duration_ns("1.5ms").value(), 1'500'000u);
  EXPECT_EQ(parse_duration_ns("2s").value(), 2'000'000'000u);
  for (const char* bad : {"", "us", "0", "0ns", "-1ms", "nan", "nanms", "infs", "1e30s", "5 ms", "5min", "0x10ns"})
    expect_refused(parse_duration_ns(bad), bad);
}

}  // namespace
}  // namespace callprof

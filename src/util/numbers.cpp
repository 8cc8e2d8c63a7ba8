// One grammar for every number a user types: digits with an optional fraction and exponent
// (reals), digits only (counts); the range checks come before any conversion can overflow.
#include "util/numbers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace callprof {
namespace {

// Refuses what strtod would take but a person did not mean: "nan", "inf", "0x10", " 5".
bool is_decimal_real(std::string_view s) {
  size_t i = 0, digits = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) ++digits;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) ++digits;
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t start = i;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    }
    if (i == start) return false;
  }
  return i == s.size();
}

// The text as shown in an error: quoted, and cut if someone pasted a novel.
std::string shown(std::string_view text) {
  std::string s(text.substr(0, 40));
  if (text.size() > 40) s += "...";
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "'" + s + "'";
}

}  // namespace

Result<uint64_t> parse_count(std::string_view text, uint64_t min, uint64_t max) {
  const bool digits =
      !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  uint64_t value = 0;
  const auto [end, ec] = digits ? std::from_chars(text.data(), text.data() + text.size(), value)
                                : std::from_chars_result{text.data(), std::errc::invalid_argument};
  if (ec == std::errc::invalid_argument || end != text.data() + text.size())
    return make_error(fmt::format("{} is not a whole number (expected {} to {})", shown(text), min, max));
  if (ec == std::errc::result_out_of_range || value < min || value > max)
    return make_error(fmt::format("{} is out of range (expected {} to {})", shown(text), min, max));
  return value;
}

Result<double> parse_real(std::string_view text, double min, double max) {
  if (!is_decimal_real(text))
    return make_error(fmt::format("{} is not a number (expected {:g} to {:g})", shown(text), min, max));
  const double value = std::strtod(std::string(text).c_str(), nullptr);
  if (!std::isfinite(value) || value < min || value > max)
    return make_error(fmt::format("{} is out of range (expected {:g} to {:g})", shown(text), min, max));
  return value;
}

Result<int64_t> parse_seconds_ns(std::string_view text, bool zero_allowed) {
  const char* range = zero_allowed ? "0 to" : "more than 0, at most";
  if (!is_decimal_real(text))
    return make_error(fmt::format("{} is not a number of seconds (expected {} {:g})", shown(text), range, kMaxSeconds));
  const double seconds = std::strtod(std::string(text).c_str(), nullptr);
  const int64_t ns =
      std::isfinite(seconds) && seconds >= 0 && seconds <= kMaxSeconds ? int64_t(std::llround(seconds * 1e9)) : -1;
  if (ns < 0 || (ns == 0 && !zero_allowed))
    return make_error(fmt::format("{} is out of range (expected {} {:g} seconds)", shown(text), range, kMaxSeconds));
  return ns;
}

Result<uint64_t> parse_duration_ns(std::string_view text, bool zero_allowed) {
  size_t number_end = text.size();
  while (number_end > 0 && std::isalpha(static_cast<unsigned char>(text[number_end - 1]))) --number_end;
  const std::string_view number = text.substr(0, number_end), unit = text.substr(number_end);
  const double scale = unit == "" || unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : 0;
  const auto bad = [&] {
    return make_error(fmt::format("{} is not a duration (examples: 500ns, 10us, 1.5ms, 2s; at most {:g}s)", shown(text),
                                  kMaxSeconds));
  };
  if (scale == 0 || !is_decimal_real(number)) return bad();
  const double ns = std::strtod(std::string(number).c_str(), nullptr) * scale;
  if (!std::isfinite(ns) || ns < (zero_allowed ? 0 : 1) || ns > kMaxSeconds * 1e9) return bad();
  return uint64_t(std::llround(ns));
}

}  // namespace callprof

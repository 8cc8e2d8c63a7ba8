// Unit formatting for the text views.
#include "report/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "model/metrics.h"

namespace callprof {
namespace {

// `v` (>= 0) with `decimals` (0-2) digits after the point, rounded as printf and fmt
// round, then `suffix`. A tree view formats millions of these: the digits come from an
// integer where that is exact, from std::to_chars where v * 10^decimals lies within 1e-6 of
// a rounding tie (or is too large for the integer to be exact).
std::string fixed(double v, int decimals, std::string_view suffix) {
  static constexpr double kScale[] = {1, 10, 100};
  const double scaled = v * kScale[decimals];
  char buf[64];
  char* end = buf;
  if (scaled < 1e12 && std::abs(scaled - std::floor(scaled) - 0.5) > 1e-6) {
    const auto q = static_cast<uint64_t>(scaled + 0.5);
    char digits[24];
    char* d_end = std::to_chars(digits, digits + sizeof digits, q).ptr;
    const size_t n = size_t(d_end - digits);
    const size_t whole = n > size_t(decimals) ? n - size_t(decimals) : 0;
    if (whole == 0) *end++ = '0';
    end = std::copy(digits, digits + whole, end);
    if (decimals) {
      *end++ = '.';
      for (size_t z = n; z < size_t(decimals); ++z) *end++ = '0';  // 0.05: the zeros q lacks
      end = std::copy(digits + whole, d_end, end);
    }
  } else {
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
    end = ec == std::errc() ? ptr : buf;
  }
  return std::string(buf, end).append(suffix);
}

std::string integer(uint64_t v, std::string_view suffix) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end).append(suffix);
}

}  // namespace

std::string format_ns(uint64_t ns) {
  if (ns == Metrics::kUnset) return "-";
  if (ns == 0) return "0";  // columns of zeros read better without a unit
  if (ns < 1000) return integer(ns, "ns");
  static constexpr const char* kUnits[] = {"µs", "ms", "s"};
  double v = double(ns) / 1e3;
  size_t unit = 0;
  // Promote after rounding too, so 999.96µs prints as 1.00ms, not 1000µs.
  while (unit < 2 && v >= 999.5) {
    v /= 1e3;
    ++unit;
  }
  const char* u = kUnits[unit];
  return fixed(v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0, u);
}

std::string format_bytes(uint64_t bytes) {
  if (bytes == 0) return "0";
  if (bytes < 1024) return integer(bytes, "B");
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(bytes) / 1024;
  size_t unit = 0;
  while (unit < 5 && v >= 1023.5) {
    v /= 1024;
    ++unit;
  }
  return fixed(v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0, kUnits[unit]);
}

std::string format_ms(int64_t ns) { return fmt::format("{:.3f}ms", double(ns) / 1e6); }

std::string format_pct(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  return fixed(100.0 * double(part) / double(whole), 2, "%");
}

}  // namespace callprof

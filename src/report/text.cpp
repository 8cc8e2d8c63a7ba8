// Unit formatting for the text views.
#include "report/text.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/metrics.h"

namespace callprof {

std::string format_ns(uint64_t ns) {
  if (ns == Metrics::kUnset) return "-";
  if (ns == 0) return "0";  // columns of zeros read better without a unit
  if (ns < 1000) return fmt::format("{}ns", ns);
  static constexpr const char* kUnits[] = {"µs", "ms", "s"};
  double v = double(ns) / 1e3;
  size_t unit = 0;
  // Promote after rounding too, so 999.96µs prints as 1.00ms, not 1000µs.
  while (unit < 2 && v >= 999.5) {
    v /= 1e3;
    ++unit;
  }
  const char* u = kUnits[unit];
  if (v < 9.995) return fmt::format("{:.2f}{}", v, u);
  if (v < 99.95) return fmt::format("{:.1f}{}", v, u);
  return fmt::format("{:.0f}{}", v, u);
}

std::string format_bytes(uint64_t bytes) {
  if (bytes == 0) return "0";
  if (bytes < 1024) return fmt::format("{}B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(bytes) / 1024;
  size_t unit = 0;
  while (unit < 5 && v >= 1023.5) {
    v /= 1024;
    ++unit;
  }
  if (v < 9.995) return fmt::format("{:.2f}{}", v, kUnits[unit]);
  if (v < 99.95) return fmt::format("{:.1f}{}", v, kUnits[unit]);
  return fmt::format("{:.0f}{}", v, kUnits[unit]);
}

std::string format_ms(int64_t ns) { return fmt::format("{:.3f}ms", double(ns) / 1e6); }

std::string format_pct(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  return fmt::format("{:.2f}%", 100.0 * double(part) / double(whole));
}

}  // namespace callprof

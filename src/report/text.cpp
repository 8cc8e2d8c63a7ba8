// Unit formatting for the text views.
#include "report/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "model/metrics.h"

namespace callprof {
namespace {

// `v` with `decimals` digits after the point, rounded as printf and fmt round, then
// `suffix`. std::to_chars rather than fmt: a tree view formats millions of these, and
// fmt parses its format string at every call.
std::string fixed(double v, int decimals, std::string_view suffix) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  std::string out(buf, ec == std::errc() ? end : buf);
  return out.append(suffix);
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

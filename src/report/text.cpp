// Escaping and unit formatting for the text views.
#include "report/text.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/metrics.h"

namespace callprof {
namespace {

// Length of the valid UTF-8 sequence at s[i] (0 when invalid) and its code point.
size_t utf8_sequence(std::string_view s, size_t i, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  size_t len = b0 >= 0xF0 && b0 <= 0xF4 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
  if (b0 >= 0xF5 || len == 0 || i + len > s.size()) return 0;
  cp = b0 & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  // Reject overlong encodings, surrogates and out-of-range values.
  static constexpr char32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return len;
}

bool is_format_control(char32_t cp) {
  // C1 controls (8-bit CSI etc.), bidi embeddings/overrides/isolates, line separators.
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x200E || cp == 0x200F;
}

void escape_ascii_control(unsigned char c, std::string& out) {
  switch (c) {
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      out += fmt::format("\\x{:02x}", c);
      break;
  }
}

}  // namespace

std::string escape_text(std::string_view s) {
  // Fast path: printable ASCII (almost every name) needs no decoding.
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const size_t len = utf8_sequence(s, i, cp);
    if (len == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (cp < 0x20 || cp == 0x7F)
      escape_ascii_control(static_cast<unsigned char>(cp), out);
    else if (is_format_control(cp))
      out += fmt::format("\\u{:04x}", static_cast<uint32_t>(cp));
    else
      out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

size_t display_width(std::string_view s) {
  size_t w = 0;
  for (char c : s) w += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return w;
}

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

std::string_view base_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace callprof

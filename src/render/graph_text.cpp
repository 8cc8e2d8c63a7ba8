// Text for the call graph's DOT: inert names, DOT quoting, units.
#include "render/graph_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "util/escape.h"

namespace callprof {
namespace {

// Byte length of the UTF-8 sequence starting with `lead` (the text is valid UTF-8 here).
size_t sequence_length(unsigned char lead) { return lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2; }

bool xml_noncharacter(std::string_view s, size_t i) {
  // U+FFFE and U+FFFF: EF BF BE / EF BF BF.
  return s.size() >= i + 3 && (unsigned char)s[i] == 0xEF && (unsigned char)s[i + 1] == 0xBF &&
         ((unsigned char)s[i + 2] == 0xBE || (unsigned char)s[i + 2] == 0xBF);
}

}  // namespace

std::string safe_text(std::string_view untrusted, size_t max_chars) {
  const std::string escaped = escape_text(untrusted);
  static constexpr std::string_view kNonchar[2] = {"\\ufffe", "\\uffff"};
  std::vector<std::string_view> chars;  // one per code point (a replaced one counts as one)
  chars.reserve(escaped.size());
  const std::string_view s = escaped;
  for (size_t i = 0; i < s.size();) {
    if (xml_noncharacter(s, i)) {
      chars.push_back(kNonchar[(unsigned char)s[i + 2] - 0xBE]);
      i += 3;
      continue;
    }
    const size_t len = std::min(sequence_length((unsigned char)s[i]), s.size() - i);
    chars.push_back(s.substr(i, len));
    i += len;
  }
  std::string out;
  if (chars.size() <= max_chars || max_chars < 3) {
    for (std::string_view c : chars) out += c;
    return out;
  }
  const size_t head = (max_chars - 1) / 2, tail = max_chars - 1 - head;
  for (size_t i = 0; i < head; ++i) out += chars[i];
  out += "…";
  for (size_t i = chars.size() - tail; i < chars.size(); ++i) out += chars[i];
  return out;
}

std::string dot_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;  // Graphviz decodes entities in every label: shown as '<'
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
        break;
    }
  }
  return out;
}

std::string html_label_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
        break;
    }
  }
  return out;
}

std::string format_duration(uint64_t ns) {
  if (ns == 0) return "0";
  if (ns < 1000) return fmt::format("{}ns", ns);
  static constexpr const char* kUnits[] = {"µs", "ms", "s"};
  double v = double(ns) / 1e3;
  size_t unit = 0;
  while (unit < 2 && v >= 999.5) {  // after rounding too: 999.96µs is 1.00ms
    v /= 1e3;
    ++unit;
  }
  if (v < 9.995) return fmt::format("{:.2f}{}", v, kUnits[unit]);
  if (v < 99.95) return fmt::format("{:.1f}{}", v, kUnits[unit]);
  return fmt::format("{:.0f}{}", v, kUnits[unit]);
}

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_share(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  const double pct = 100.0 * double(part) / double(whole);
  if (part == 0) return "0%";
  if (pct < 0.01) return "<0.01%";
  if (pct < 1) return fmt::format("{:.2f}%", pct);
  return fmt::format("{:.1f}%", pct);
}

}  // namespace callprof

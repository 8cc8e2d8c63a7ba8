// Terminal escaping of untrusted text: one UTF-8 decoder, one rule for what is unsafe.
#include "util/escape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

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

size_t printable_ascii_prefix(std::string_view s) {
  // Eight bytes at a time: names are long, and every table cell is checked.
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    const uint64_t del = w ^ (0x7F * kOnes);
    const uint64_t unsafe = w | ((w - 0x20 * kOnes) & ~w) | ((del - kOnes) & ~del);
    if (unsafe & kHighs) break;  // a byte >= 0x80, < 0x20 or 0x7F in this word
  }
  while (i < s.size() && s[i] >= 0x20 && s[i] < 0x7F) ++i;
  return i;
}

bool is_escaped_text(std::string_view s) {
  for (size_t i = printable_ascii_prefix(s); i < s.size(); i += printable_ascii_prefix(s.substr(i))) {
    char32_t cp = 0;
    const size_t len = utf8_sequence(s, i, cp);
    if (len < 2 || is_format_control(cp)) return false;  // invalid, or an ASCII control
    i += len;
  }
  return true;
}

std::string escape_text(std::string_view s) {
  // Fast path: printable ASCII (almost every name) needs no decoding.
  if (printable_ascii_prefix(s) == s.size()) return std::string(s);
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

std::string json_string(std::string_view s) {
  using nlohmann::json;
  return inert_json(json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace));
}

std::string inert_json(std::string json_text) {
  if (json_text.find_first_of("\xc2\xe2") == std::string::npos) return json_text;
  std::string out;
  out.reserve(json_text.size());
  for (size_t i = 0; i < json_text.size();) {
    char32_t cp = 0;
    const size_t len = utf8_sequence(json_text, i, cp);
    if (len > 1 && is_format_control(cp))
      out += fmt::format("\\u{:04x}", static_cast<uint32_t>(cp));
    else
      out.append(json_text, i, std::max<size_t>(len, 1));
    i += std::max<size_t>(len, 1);
  }
  return out;
}

size_t display_width(std::string_view s) {
  size_t w = 0;
  for (char c : s) w += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return w;
}

size_t display_prefix(std::string_view s, size_t columns) {
  for (size_t i = 0, n = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == columns) return i;
  return s.size();
}

}  // namespace callprof

// Call classification by instruction shape. A byte sequence can fit both shapes by
// accident; the order of the checks prefers the reading that is far more likely.
#include "collect/runtime/call_kind.h"

namespace callprof {
namespace {

// Length of an `FF /2` instruction from its ModRM (and SIB) byte, opcode included.
size_t indirect_call_length(uint8_t modrm, uint8_t sib) {
  const unsigned mod = modrm >> 6, rm = modrm & 7;
  if (mod == 3) return 2;
  size_t len = 2;
  if (rm == 4) {
    ++len;                                     // SIB byte
    if (mod == 0 && (sib & 7) == 5) len += 4;  // no base: disp32
  } else if (mod == 0 && rm == 5) {
    len += 4;  // RIP-relative disp32
  }
  if (mod == 1) len += 1;
  if (mod == 2) len += 4;
  return len;
}

bool is_indirect_call_at(std::span<const uint8_t> b, size_t pos) {
  if (pos + 1 >= b.size() || b[pos] != 0xFF || ((b[pos + 1] >> 3) & 7) != 2) return false;
  const uint8_t sib = pos + 2 < b.size() ? b[pos + 2] : 0;
  return pos + indirect_call_length(b[pos + 1], sib) == b.size();
}

}  // namespace

CallKind classify_call(std::span<const uint8_t> before) {
  if (before.size() > 8) before = before.last(8);
  const size_t n = before.size();
  // `call *%reg` first: a direct call's rel32 would need an offset near -700 MiB to end
  // in these two bytes.
  if (n >= 2 && is_indirect_call_at(before, n - 2)) return CallKind::Indirect;
  if (n >= 5 && before[n - 5] == 0xE8) return CallKind::Direct;
  for (size_t len = 3; len <= 7 && len <= n; ++len)
    if (is_indirect_call_at(before, n - len)) return CallKind::Indirect;
  return CallKind::Unknown;
}

}  // namespace callprof

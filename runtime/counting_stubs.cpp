// See counting_stubs.h.
#include "counting_stubs.h"

#include "near_code.h"

namespace callprof::rt {
namespace {

void put32(uint8_t* at, int32_t v) { __builtin_memcpy(at, &v, 4); }

}  // namespace

void encode_counting_stub(int32_t tls_offset, int32_t counter_offset, uint8_t out[kCountingStubBytes]) {
  static const uint8_t kCode[22] = {
      0x64, 0x4c, 0x8b, 0x1c, 0x25, 0, 0, 0, 0,  // mov %fs:TLS, %r11
      0x4d, 0x85, 0xdb,                          // test %r11, %r11
      0x74, 0x07,                                // je ret
      0x49, 0xff, 0x83, 0,    0,    0, 0,        // incq COUNTER(%r11)
      0xc3,                                      // ret
  };
  __builtin_memset(out, 0xcc, kCountingStubBytes);  // int3 after it
  __builtin_memcpy(out, kCode, sizeof kCode);
  put32(out + 5, tls_offset);
  put32(out + 17, counter_offset);
}

uint64_t map_counting_stubs(uint64_t lo, uint64_t hi, int32_t tls_offset, int32_t counter_offset, uint32_t count) {
  const uint64_t bytes = (uint64_t(count) * kCountingStubBytes + 4095) & ~uint64_t(4095);
  auto* code = static_cast<uint8_t*>(map_within_reach(lo, hi, bytes));
  if (!code) return 0;
  for (uint32_t i = 0; i < count; ++i)
    encode_counting_stub(tls_offset, int32_t(int64_t(counter_offset) + 8 * int64_t(i)), code + i * kCountingStubBytes);
  return seal_near_code(code, bytes) ? reinterpret_cast<uint64_t>(code) : 0;
}

}  // namespace callprof::rt

// See counting_stubs.h.
#include "counting_stubs.h"

#include <sys/mman.h>

#include "raw_syscall.h"

namespace callprof::rt {
namespace {

constexpr uint64_t kPage = 4096;
constexpr int64_t kReach = int64_t(1) << 31;
// Where to look for a free place: in steps of this much away from the module, this many.
constexpr uint64_t kStep = uint64_t(1) << 20;
constexpr uint64_t kSteps = 512;

void put32(uint8_t* at, int32_t v) { __builtin_memcpy(at, &v, 4); }

// Whether a 5-byte call anywhere in [lo, hi) reaches every byte of [at, at + bytes).
bool within_reach(uint64_t lo, uint64_t hi, uint64_t at, uint64_t bytes) {
  return int64_t(at + bytes) - int64_t(lo) < kReach && int64_t(hi) - int64_t(at) < kReach;
}

// A mapping of `bytes` at exactly `at`, or null (taken, or refused).
void* map_at(uint64_t at, uint64_t bytes) {
  void* p = sys::mmap(reinterpret_cast<void*>(at), bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE);
  if (p && p != reinterpret_cast<void*>(at)) {  // a kernel that took the address as a hint
    sys::munmap(p, bytes);
    return nullptr;
  }
  return p;
}

}  // namespace

void encode_counting_stub(int32_t tls_offset, int32_t counter_offset, uint8_t out[kCountingStubBytes]) {
  static const uint8_t kCode[22] = {
      0x64, 0x48, 0x8b, 0x04, 0x25, 0, 0, 0, 0,  // mov %fs:TLS, %rax
      0x48, 0x85, 0xc0,                          // test %rax, %rax
      0x74, 0x07,                                // je ret
      0x48, 0xff, 0x80, 0,    0,    0, 0,        // incq COUNTER(%rax)
      0xc3,                                      // ret
  };
  __builtin_memset(out, 0xcc, kCountingStubBytes);  // int3 after it
  __builtin_memcpy(out, kCode, sizeof kCode);
  put32(out + 5, tls_offset);
  put32(out + 17, counter_offset);
}

uint64_t map_counting_stubs(uint64_t lo, uint64_t hi, int32_t tls_offset, int32_t counter_offset, uint32_t count) {
  const uint64_t bytes = (uint64_t(count) * kCountingStubBytes + kPage - 1) & ~(kPage - 1);
  // Below the module first: above a program lies its heap, which must stay free to grow.
  const uint64_t span = (bytes + kStep - 1) & ~(kStep - 1);
  const uint64_t below = (lo & ~(kStep - 1)) - span, above = (hi + kStep - 1) & ~(kStep - 1);
  void* area = nullptr;
  for (uint64_t k = 0; k < kSteps && !area && k * kStep <= below; ++k)
    if (within_reach(lo, hi, below - k * kStep, bytes)) area = map_at(below - k * kStep, bytes);
  for (uint64_t k = 0; k < kSteps && !area; ++k)
    if (within_reach(lo, hi, above + k * kStep, bytes)) area = map_at(above + k * kStep, bytes);
  if (!area) return 0;
  auto* code = static_cast<uint8_t*>(area);
  for (uint32_t i = 0; i < count; ++i)
    encode_counting_stub(tls_offset, int32_t(int64_t(counter_offset) + 8 * int64_t(i)), code + i * kCountingStubBytes);
  if (sys::mprotect(area, bytes, PROT_READ | PROT_EXEC) != 0) {
    sys::munmap(area, bytes);
    return 0;
  }
  return reinterpret_cast<uint64_t>(area);
}

}  // namespace callprof::rt

// See near_code.h.
#include "near_code.h"

#include <sys/mman.h>

#include "raw_syscall.h"

namespace callprof::rt {
namespace {

constexpr int64_t kReach = int64_t(1) << 31;
constexpr uint64_t kStep = uint64_t(1) << 20;
constexpr uint64_t kSteps = 2048;  // 2 GiB each way

// Patched stubs (one per 2 GiB of modules, at most 64) and counting stubs (one per module
// with a function removed): the runtime never needs more.
constexpr uint32_t kMaxAreas = 320;
NearCodeArea g_areas[kMaxAreas];
uint32_t g_area_claimed = 0, g_area_count = 0;

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

bool within_call_reach(uint64_t lo, uint64_t hi, uint64_t at, uint64_t bytes) {
  return int64_t(at + bytes) - int64_t(lo) < kReach && int64_t(hi) + 5 - int64_t(at) < kReach;
}

void* map_within_reach(uint64_t lo, uint64_t hi, uint64_t bytes) {
  const uint64_t span = (bytes + kStep - 1) & ~(kStep - 1);
  const uint64_t below = lo > span + kStep ? (lo & ~(kStep - 1)) - span : 0, above = (hi + kStep - 1) & ~(kStep - 1);
  for (uint64_t k = 0; below != 0 && k < kSteps && k * kStep < below; ++k)
    if (within_call_reach(lo, hi, below - k * kStep, bytes))
      if (void* p = map_at(below - k * kStep, bytes)) return p;
  for (uint64_t k = 0; k < kSteps; ++k)
    if (within_call_reach(lo, hi, above + k * kStep, bytes))
      if (void* p = map_at(above + k * kStep, bytes)) return p;
  return nullptr;
}

bool seal_near_code(void* at, uint64_t bytes) {
  const uint32_t slot = __atomic_fetch_add(&g_area_claimed, 1u, __ATOMIC_RELAXED);
  if (slot >= kMaxAreas || sys::mprotect(at, bytes, PROT_READ | PROT_EXEC) != 0) {
    sys::munmap(at, bytes);
    return false;
  }
  const uint64_t start = reinterpret_cast<uint64_t>(at);
  g_areas[slot] = {start, start + bytes};
  // Published in the order claimed, so that a dump writer reads only written entries.
  while (__atomic_load_n(&g_area_count, __ATOMIC_ACQUIRE) != slot) sys::call(SYS_sched_yield);
  __atomic_store_n(&g_area_count, slot + 1, __ATOMIC_RELEASE);
  return true;
}

uint32_t near_code_areas(const NearCodeArea** areas) {
  *areas = g_areas;
  return __atomic_load_n(&g_area_count, __ATOMIC_ACQUIRE);
}

}  // namespace callprof::rt

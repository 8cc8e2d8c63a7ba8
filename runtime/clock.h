// Timestamps: the TSC on the hot path, CLOCK_MONOTONIC pairs to convert ticks to ns later.
#pragma once

#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

namespace callprof::rt {

inline uint64_t ticks() { return __rdtsc(); }
// rdtsc does not wait for earlier instructions: at a return it can run while the callee's
// loads are still missing the cache, and their wait is then timed as the caller's. lfence
// first makes the read wait for them (record --ordered-clock; it costs every call).
inline uint64_t ordered_ticks() {
  _mm_lfence();
  return __rdtsc();
}

inline uint64_t clock_ns(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// A (TSC, clock) pair read as close together as we can: the clock read is bracketed by
// two TSC reads, and of a few tries the tightest bracket wins, so a preemption between
// the reads cannot skew the ticks-to-ns rate.
inline void calibration_pair(clockid_t id, uint64_t* tsc, uint64_t* ns) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 8; ++i) {
    uint64_t before = ticks();
    uint64_t t = clock_ns(id);
    uint64_t after = ticks();
    if (after - before < best) {
      best = after - before;
      *tsc = before + (after - before) / 2;
      *ns = t;
    }
  }
}

// The caller's stack pointer at the call of the current function (its canonical frame
// address): known from the function's own stack adjustments, no frame pointer needed.
#define CALLPROF_CALLER_SP() (reinterpret_cast<uint64_t>(__builtin_dwarf_cfa()))

}  // namespace callprof::rt

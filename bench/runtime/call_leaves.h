// What bench/runtime's loops share: the leaves every iteration calls, kept real calls, and
// the clock that times the loop without being one of the counted calls.
#ifndef CALLPROF_BENCH_CALL_LEAVES_H
#define CALLPROF_BENCH_CALL_LEAVES_H

#include <stdint.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))
// Hide a value from the optimizer (no arithmetic on it can be moved across this point).
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

NOINLINE static uint64_t leaf_add(uint64_t x) {
  OPAQUE(x);
  return x + 0x9E3779B97F4A7C15ull;
}

NOINLINE static uint64_t leaf_mul(uint64_t x) {
  OPAQUE(x);
  return x * 0xBF58476D1CE4E5B9ull;
}

NOINLINE static uint64_t leaf_mix(uint64_t x) {
  OPAQUE(x);
  return x ^ (x >> 31);
}

// Timing scaffolding, not one of the counted calls: no hooks (GCC instruments an inlined
// function too, which would make the profile's count larger than the truth printed).
__attribute__((no_instrument_function)) static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif

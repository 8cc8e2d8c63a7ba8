// callheavy: a call-heavy program with a known number of function calls, for measuring
// the per-call cost of entry/exit hooks (bench/runtime/run.sh).
//
// Usage: callheavy [N]   (default N = 10000000 iterations)
//
// Each iteration makes exactly CALLS_PER_ITER calls of the functions below: a call tree a
// few levels deep (leaves, a 2-3 deep chain, a little direct recursion). Every function is
// noinline/noclone and its value feeds a checksum through an empty asm barrier, so the
// compiler can neither fold, merge, clone nor tail-call (jump to) any of them: the plain
// build (no hooks) makes the very same calls as the instrumented one. With main itself the
// program makes N * CALLS_PER_ITER + 1 calls of instrumented functions; it prints that
// number ("calls=") so scripts compare it with a profile's call count.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "call_leaves.h"

enum { REC_DEPTH = 3 };
// step 1 + leaf_add 1 + mid 3 + rec 4 (depth 3..0) + leaf_mix 1
enum { CALLS_PER_ITER = 1 + 1 + 3 + (REC_DEPTH + 1) + 1 };

// Two deep: mid -> leaf_mul, leaf_mix.
NOINLINE static uint64_t mid(uint64_t x) {
  uint64_t a = leaf_mul(x);
  uint64_t b = leaf_mix(a);
  OPAQUE(b);  // no tail call
  return b + 1;
}

// Direct recursion, d + 1 calls.
NOINLINE static uint64_t rec(unsigned d, uint64_t x) {
  OPAQUE(x);
  if (d == 0) return x;
  uint64_t r = rec(d - 1, x + d);
  OPAQUE(r);  // no tail call, no accumulator loop
  return r;
}

// One iteration: step -> leaf_add; step -> mid -> {leaf_mul, leaf_mix}; step -> rec^4;
// step -> leaf_mix.
NOINLINE static uint64_t step(uint64_t i) {
  uint64_t s = leaf_add(i);
  s ^= mid(s);
  s += rec(REC_DEPTH, s);
  s ^= leaf_mix(s);
  OPAQUE(s);
  return s;
}

int main(int argc, char** argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000ull;
  uint64_t sum = 0, start = clock_ns(CLOCK_MONOTONIC);
  for (uint64_t i = 0; i < n; ++i) sum += step(i);
  uint64_t elapsed = clock_ns(CLOCK_MONOTONIC) - start;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  // elapsed_ns: the loop alone, for overheads that must leave out start-up and writing.
  printf("iterations=%llu calls=%llu checksum=%016llx maxrss_kb=%ld elapsed_ns=%llu\n", (unsigned long long)n,
         (unsigned long long)(n * CALLS_PER_ITER + 1), (unsigned long long)sum, ru.ru_maxrss,
         (unsigned long long)elapsed);
  return 0;
}

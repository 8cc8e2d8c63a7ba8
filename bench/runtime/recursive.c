// recursive: a recursion-heavy loop for bench/runtime/run.sh (issue 28): about 80 % of the
// calls are a recursive Fibonacci, the rest a few leaves and a 2-deep chain as in callheavy.
//
// Usage: recursive [N]   (default N = 2000000 iterations)
//
// Each iteration makes CALLS_PER_ITER calls: step -> leaf_add, mid -> leaf_mul, leaf_mix,
// leaf_mix, and fib(FIB_N), which makes FIB_CALLS calls of itself (up to FIB_N deep). Every
// function is noinline/noclone and its values pass through empty asm barriers, so no call
// is folded, cloned, turned into a jump or into a loop with an accumulator (GCC's tail
// recursion with an accumulator would otherwise remove one of fib's two calls): the plain
// build makes the same calls as the instrumented one. The program prints "calls=" (with
// main), a checksum, its peak RSS and the loop's own wall and CPU time (loop_ns,
// loop_cpu_ns), which leave out start-up and writing the profile.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "call_leaves.h"

enum { FIB_N = 6 };
enum { FIB_CALLS = 25 };  // calls of fib made by fib(6): C(n) = C(n-1) + C(n-2) + 1, C(0) = C(1) = 1
// step 1 + leaf_add 1 + mid 1 + leaf_mul 1 + leaf_mix 2 + fib 25: fib makes 25 of 31 (80.6 %)
enum { CALLS_PER_ITER = 1 + 1 + 1 + 1 + 2 + FIB_CALLS };

NOINLINE static uint64_t mid(uint64_t x) {
  uint64_t a = leaf_mul(x);
  OPAQUE(a);  // no tail call
  return a + 1;
}

// The classic doubly recursive Fibonacci; the barriers keep both calls real calls.
NOINLINE static uint64_t fib(unsigned n) {
  OPAQUE(n);
  if (n < 2) return n;
  uint64_t a = fib(n - 1);
  OPAQUE(a);
  uint64_t b = fib(n - 2);
  OPAQUE(b);
  return a + b;
}

NOINLINE static uint64_t step(uint64_t i) {
  uint64_t s = leaf_add(i);
  s ^= mid(s);
  s += leaf_mix(s);
  unsigned n = FIB_N;
  OPAQUE(n);  // not a constant: computed anew each time
  s += fib(n);
  s ^= leaf_mix(s);
  OPAQUE(s);
  return s;
}

int main(int argc, char** argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000ull;
  uint64_t sum = 0, start = clock_ns(CLOCK_MONOTONIC), start_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  for (uint64_t i = 0; i < n; ++i) sum += step(i);
  uint64_t elapsed_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - start_cpu, elapsed = clock_ns(CLOCK_MONOTONIC) - start;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("iterations=%llu calls=%llu checksum=%016llx maxrss_kb=%ld loop_ns=%llu loop_cpu_ns=%llu\n",
         (unsigned long long)n, (unsigned long long)(n * CALLS_PER_ITER + 1), (unsigned long long)sum, ru.ru_maxrss,
         (unsigned long long)elapsed, (unsigned long long)elapsed_cpu);
  return 0;
}

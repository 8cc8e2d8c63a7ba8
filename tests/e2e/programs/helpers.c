/* Small static helpers, as real C code has them (issue 14, item 12): both compilers keep
 * the hooks of inlined functions with plain -finstrument-functions, so mix, clamp and
 * lookup cost more in hooks than in their bodies. By construction:
 *   main -> work (1 call); work -> mix, lookup: CALLS calls each; lookup -> clamp: CALLS;
 *   work -> slow: CALLS / 10000 calls, each working 200 us (never tiny).
 * Prints the time main spent ("elapsed_ns=") and the call count ("calls="); built with
 * -DE2E_PLAIN (no hooks) it gives the uninstrumented run time. Exit status 0. */
#include <stdio.h>

#include "truth.h"

#ifdef E2E_PLAIN
#define HELPER static inline __attribute__((no_instrument_function))
#define FN E2E_FN __attribute__((no_instrument_function))
#else
#define HELPER static inline
#define FN E2E_FN
#endif

#define CALLS 2000000u

static unsigned table[1024];

HELPER unsigned mix(unsigned x) { return (x ^ (x >> 7)) * 2654435761u; }
HELPER unsigned clamp(unsigned x, unsigned hi) { return x > hi ? hi : x; }
HELPER unsigned lookup(unsigned i) { return table[clamp(i & 2047, 1023)]; }

FN void slow(void) { e2e_work_us(200); }

FN unsigned work(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; ++i) {
    s += lookup(mix(i));
    if (i % 10000 == 0) slow();
  }
  return s;
}

int main(void) {
  for (unsigned i = 0; i < 1024; ++i) table[i] = i * 7u;
  uint64_t start = e2e_now_ns();
  unsigned s = work(CALLS);
  uint64_t elapsed = e2e_now_ns() - start;
  printf("elapsed_ns=%llu calls=%u sum=%u\n", (unsigned long long)elapsed, CALLS, s);
  return 0;
}

/* Call-heavy, by construction: work() calls the tiny leaf() 10^7 times from a loop.
 * Prints the time main spent ("elapsed_ns=") and the number of calls ("calls="), so the
 * same source built without hooks gives the truth for compensation. */
#include <stdio.h>

#include "truth.h"

/* Built with -DE2E_PLAIN, the functions get no hooks: the uninstrumented baseline. */
#ifdef E2E_PLAIN
#define FN E2E_FN __attribute__((no_instrument_function))
#else
#define FN E2E_FN
#endif

#define CALLS 10000000u

FN unsigned leaf(unsigned x) { return (x * 2654435761u) >> 7; }

FN unsigned work(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; ++i) s += leaf(i);
  return s;
}

int main(void) {
  uint64_t start = e2e_now_ns();
  unsigned s = work(CALLS);
  uint64_t elapsed = e2e_now_ns() - start;
  printf("elapsed_ns=%llu calls=%u sum=%u\n", (unsigned long long)elapsed, CALLS, s);
  return 0;
}

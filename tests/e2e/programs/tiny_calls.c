/* A tiny function the compiler really calls (issue 14, item 12): step is a few
 * instructions, out of line in the plain build too, so by default the runtime keeps its
 * hooks (a sampling profile shows its time as its own); record --auto-fold all folds it.
 * By construction:
 *   main -> work (1 call); work -> step: CALLS calls; work -> slow: CALLS / 10000 calls,
 *   each working 200 us (never tiny).
 * Prints the call count and a sum of the results (so the calls are not dropped). Exit
 * status 0. */
#include <stdio.h>

#include "truth.h"

#define CALLS 2000000u

E2E_FN unsigned step(unsigned x) { return (x ^ (x >> 7)) * 2654435761u; }

E2E_FN void slow(void) { e2e_work_us(200); }

E2E_FN unsigned work(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; ++i) {
    s += step(i);
    if (i % 10000 == 0) slow();
  }
  return s;
}

int main(void) {
  printf("calls=%u sum=%u\n", CALLS, work(CALLS));
  return 0;
}

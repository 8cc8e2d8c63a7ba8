/* A thin wrapper of real work (record --auto-fold wrappers): relay does nothing of its own
 * but call body, whose calls are far from tiny. By construction:
 *   main -> work (1 call); work -> relay: CALLS calls; relay -> body: CALLS calls, each
 *   busy for 150 ns (never tiny).
 * --auto-fold all keeps relay (it calls a function that is not folded); --auto-fold
 * wrappers folds it, and body's later calls land under work. Prints the call count and a
 * sum of the results. Exit status 0. */
#include <stdio.h>

#include "truth.h"

#define CALLS 200000u

/* Busy for 150 ns by the clock, whose reads are ordered (lfence; rdtsc): no work of body's
 * is still in flight when its exit hook reads the clock, so none lands in relay's time (a
 * long chain of multiplications did, with Clang: docs/modes.md, "Clock reads at returns"). */
E2E_FN unsigned body(unsigned x) {
  const uint64_t end = e2e_now_ns() + 150;
  while (e2e_now_ns() < end) x = x * 2654435761u + 1;
  return x;
}

E2E_FN unsigned relay(unsigned x) { return body(x) + 1; }

E2E_FN unsigned work(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; ++i) s += relay(i);
  return s;
}

int main(void) {
  printf("calls=%u sum=%u\n", CALLS, work(CALLS));
  return 0;
}

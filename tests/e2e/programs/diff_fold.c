/* A tiny function that auto-fold folds in one recording and not in the other, for `callprof
 * diff` (issue 29.6). mix is a real call of ~10 dependent multiplications (a few ns, under
 * auto-fold's threshold): `record --auto-fold all` folds it (its time then in work's self),
 * `--no-auto-fold` keeps it hooked (its time its own).
 * By construction: main -> work (1 call); work -> mix: CALLS calls. The program is the same
 * in both recordings: nothing changed.
 * Truth: diffed at one fold level, neither work nor mix changed; mix's hooked self time is
 * the phantom change work would show otherwise. Prints a sum (so the calls are kept). Exit
 * status 0. */
#include <stdio.h>

#include "truth.h"

#define CALLS 2000000u

E2E_FN unsigned mix(unsigned x) {
  for (int i = 0; i < 10; ++i) x = (x ^ (x >> 7)) * 2654435761u;
  return x;
}

E2E_FN unsigned work(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; ++i) s += mix(i);
  return s;
}

int main(void) {
  printf("sum=%u\n", work(CALLS));
  return 0;
}

/* The gprof counter-example (SPEC 1.1): A calls B and C; B and C each call D 40 times,
 * but each of B's calls of D does 3 units of work and each of C's 1 unit (unit = 2 ms of
 * wall time, see e2e_work_us). Truth: edge B->D carries 75 % of D's total and C->D 25 %
 * (gprof, apportioning by call counts, would say 50/50); B's total ~= 240 ms and is
 * nearly all D time, C's ~= 80 ms likewise; D: 80 calls. A unit this long makes hook
 * overhead negligible. The program also measures what its D calls really took per
 * caller and prints it ("truth b_d_ns=... c_d_ns=..."), the reference for the tight
 * check.
 * Exit status 0. */
#include <stdio.h>

#include "truth.h"

#define UNIT_US 2000
#define CALLS 40

static uint64_t b_d_ns, c_d_ns;

E2E_FN void D(int units) { e2e_work_us((uint64_t)units * UNIT_US); }

E2E_FN void B(void) {
  for (int i = 0; i < CALLS; ++i) {
    uint64_t t = e2e_now_ns();
    D(3);
    b_d_ns += e2e_now_ns() - t;
  }
}

E2E_FN void C(void) {
  for (int i = 0; i < CALLS; ++i) {
    uint64_t t = e2e_now_ns();
    D(1);
    c_d_ns += e2e_now_ns() - t;
  }
}

E2E_FN void A(void) {
  B();
  C();
}

int main(void) {
  A();
  printf("truth b_d_ns=%llu c_d_ns=%llu\n", (unsigned long long)b_d_ns, (unsigned long long)c_d_ns);
  return 0;
}

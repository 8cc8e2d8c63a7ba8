/* Samples inside exact mode (issue 27). main calls work() 30,000 times; work spins 20,000
 * iterations itself and calls tiny() 10 times, each spinning 2,000 of the same iterations:
 * half of work's CPU is in tiny's code (a sampling profile of this build: 0.50-0.52; with
 * 100 calls of 200 iterations the calls' own cost made it 0.59). work's own part lasts ten
 * times a call of tiny (0.7 us on a fast VM, 4.3 us on a slow one): with --auto-fold all
 * and a threshold of three times tiny's (the test measures it, see "calibrate") tiny alone
 * is folded (its hook calls then removed), so exact mode alone gives its time to work; the
 * samples give it back: about half of the samples under work land in tiny, below work.
 * Truth: work 30,000 calls; CPU: tiny's share of work's subtree 0.5 as designed, and as
 * the program measures it (printed: tiny_share=S; on this VM it ranged 0.50-0.63 between
 * runs, the machine slowing tiny's loop more than work's at times).
 * With "hooks" as argv[1], main instead calls empty() 20,000,000 times: nearly all of that
 * time is the hooks' (record it with --no-auto-fold), so most samples are the runtime's.
 * With "calibrate", it prints how long tiny's work takes on this machine (tiny_ns=N, run
 * without callprof): the test sets the auto-fold threshold between tiny's and work's own
 * (ten times tiny's) from it, since a slow VM made tiny's 0.7 us last 4.3 us.
 * Exit status 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "truth.h"

static volatile unsigned sink;

E2E_QUIET void spin(unsigned n) {
  for (unsigned i = 0; i < n; ++i) sink = sink + i;
}

/* The program's own measure of the split (two clock reads per part, through the vDSO),
 * from each part's median duration: a part the machine stopped in (preempted, or the
 * hypervisor's) lasts longer by the wall clock without a sample more, and summed, one such
 * stop moved the split by 0.05. The designed half holds only when the machine runs both
 * loops alike. */
enum { kWorkCalls = 30000 };
static uint32_t own_ns[kWorkCalls], tiny_ns[kWorkCalls];
static unsigned parts;

E2E_FN void tiny(void) { spin(2000); }
E2E_FN void work(void) {
  const uint64_t t0 = e2e_now_ns();
  spin(20000);
  const uint64_t t1 = e2e_now_ns();
  for (int i = 0; i < 10; ++i) tiny();
  const uint64_t t2 = e2e_now_ns();
  if (parts < kWorkCalls) {
    own_ns[parts] = (uint32_t)(t1 - t0);
    tiny_ns[parts++] = (uint32_t)(t2 - t1);
  }
}

__attribute__((no_instrument_function)) static int by_value(const void* a, const void* b) {
  const uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}
__attribute__((no_instrument_function)) static double median(uint32_t* v, unsigned n) {
  qsort(v, n, sizeof *v, by_value);
  return v[n / 2];
}
E2E_FN void empty(void) { sink = sink; }
E2E_FN void hooks(void) {
  for (int i = 0; i < 20000000; ++i) empty();
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "calibrate") == 0) {
    const uint64_t t0 = e2e_now_ns();
    for (int i = 0; i < 20000; ++i) spin(2000);
    printf("tiny_ns=%.0f\n", (double)(e2e_now_ns() - t0) / 20000.0);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "hooks") == 0) {
    hooks();
    return 0;
  }
  for (int i = 0; i < kWorkCalls; ++i) work();
  const double own = median(own_ns, parts), tiny_part = median(tiny_ns, parts);
  printf("tiny_share=%.4f\n", tiny_part / (own + tiny_part));
  fflush(stdout); /* its write(2) under main, not at exit */
  return 0;
}

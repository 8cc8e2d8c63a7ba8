/* One function called from several places of one caller (issue 27, item 4: the exact
 * calls made from each line). caller() calls work() 3 times with a short job from the line
 * marked short_calls, then 5 times with a job 10 times longer from the line marked
 * long_calls; the store after the loops keeps the last call from being a tail call. main
 * calls caller() 200 times, then tail_caller() 50 times, which calls work() once from the
 * line marked before_tail and once in tail position (tail_call).
 * Truth: caller 200 calls; under it, work 1,600 calls in one calling context: 600 from
 * short_calls, 1,000 from long_calls; of their time, the long calls hold 5 * 10 / (5 * 10 +
 * 3) = 94.3 %, the short ones 5.7 %. Under tail_caller, work 100 calls: 50 from before_tail
 * and 50 from tail_call; built without hooks (a patched entry), the second is a jump whose
 * callee returns to main, so its line is not known. The test finds the lines by their LINE:
 * markers. main pauses for a varying time between the rounds of caller(). Exit status 0. */
#include "truth.h"

static volatile unsigned sink;

E2E_FN void work(unsigned n) {
  for (unsigned i = 0; i < n; ++i) sink = sink + i;
}

E2E_FN void caller(void) {
  for (int k = 0; k < 3; ++k) work(20000);  /* LINE:short_calls */
  for (int k = 0; k < 5; ++k) work(200000); /* LINE:long_calls */
  sink = 0;
}

E2E_FN void tail_caller(void) {
  work(100); /* LINE:before_tail */
  work(100); /* LINE:tail_call */
}

int main(void) {
  /* Between the rounds, a pause of 0 to ~100 us drawn from a generator: caller()'s rounds
   * would otherwise repeat at a fixed period that a sampling timer can lock onto, leaving
   * the short calls without a sample (sampling tests). No call: nothing for the hooks. */
  unsigned draw = 12345;
  for (int i = 0; i < 200; ++i) {
    caller();
    draw = draw * 1103515245u + 12345u;
    for (unsigned k = 0, n = (draw >> 16) % 100 * 1000; k < n; ++k) sink = sink + k;
  }
  for (int i = 0; i < 50; ++i) tail_caller();
  return 0;
}

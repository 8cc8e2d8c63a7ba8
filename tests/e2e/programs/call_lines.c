/* One function called from two lines of one caller (issue 27, item 4: the exact calls made
 * from each line). caller() calls work() 3 times with a short job from the line marked
 * short_calls, then 5 times with a job 10 times longer from the line marked long_calls;
 * main calls caller() 200 times.
 * Truth: caller 200 calls; work 1,600 calls, one calling context: 600 from short_calls,
 * 1,000 from long_calls; of work's time, the long calls hold 5 * 10 / (5 * 10 + 3) =
 * 94.3 %, the short ones 5.7 %. The test finds the lines by their LINE: markers. Exit status 0. The store after
 * the loops keeps the last call from becoming a tail call (Clang): a patched entry's tail
 * call returns to the caller's caller, and has no call line. */
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

int main(void) {
  for (int i = 0; i < 200; ++i) caller();
  return 0;
}

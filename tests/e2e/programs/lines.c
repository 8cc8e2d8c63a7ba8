/* Source lines (issue 27, item 4: callprof annotate). hot() spends its own time on two
 * loops, one line each: the heavy loop runs 9 iterations for every one of the light loop's
 * (the same work per iteration), so ~90 % of hot's own samples are on the heavy line and
 * ~10 % on the light one; then it calls leaf() 100 times from one line and other() once
 * from another. main calls hot() 300 times.
 * Truth: hot 300 calls; leaf 30,000 calls, all from the line marked leaf_call; other 300
 * calls, all from the line marked other_call; of hot's own samples, >= 80 % on the line
 * marked heavy; hot is called from main's line marked hot_call. The test finds the lines by their LINE: markers. Exit
 * status 0. */
#include "truth.h"

static volatile unsigned sink;

E2E_FN void leaf(void) { sink = sink + 1; }
E2E_FN void other(void) { sink = sink + 2; }

E2E_FN void hot(void) {
  for (unsigned i = 0; i < 900000; ++i) sink = sink + i; /* LINE:heavy */
  for (unsigned i = 0; i < 100000; ++i) sink = sink + i; /* LINE:light */
  for (int k = 0; k < 100; ++k) leaf();                  /* LINE:leaf_call */
  other();                                               /* LINE:other_call */
}

int main(void) {
  for (int i = 0; i < 300; ++i) hot(); /* LINE:hot_call */
  return 0;
}

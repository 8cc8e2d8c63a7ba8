/* Filters and limits, by construction. main calls, 100 times each:
 *   outer() -> helper_step() -> inner(): with --exclude 'helper' inner becomes outer's
 *                                        callee and helper_step disappears;
 *   deep1() -> deep2() -> deep3() -> deep4(): --max-depth 2 keeps main -> deep1 only
 *                                        (main is depth 1);
 *   quick() (nearly nothing) and slow() (2 ms, 10 times): --min-duration 1ms keeps slow.
 * Truth: outer 100, helper_step 100, inner 100, deep1..deep4 100 each, quick 100,
 * slow 10. Exit status 0. */
#include "truth.h"

static volatile int sink;

E2E_FN void inner(void) { sink++; }
E2E_FN void helper_step(void) { inner(); }
E2E_FN void outer(void) { helper_step(); }
E2E_FN void deep4(void) { sink++; }
E2E_FN void deep3(void) { deep4(); }
E2E_FN void deep2(void) { deep3(); }
E2E_FN void deep1(void) { deep2(); }
E2E_FN void quick(void) { sink++; }
E2E_FN void slow(void) { e2e_work_us(2000); }

int main(void) {
  for (int i = 0; i < 100; ++i) {
    outer();
    deep1();
    quick();
    if (i % 10 == 0) slow();
  }
  return 0;
}

/* Direct and mutual recursion, by construction:
 *   main -> run_depth x5; run_depth -> depth(20): depth recurses down to depth(0), which
 *     works 1 ms. So depth: 105 calls (21 per run), 100 of them recursive; the chain
 *     main/run_depth/depth/depth/... has 21 depth nodes with recursion levels 0..20.
 *   main -> is_even(10) x5: is_even(10) -> is_odd(9) -> is_even(8) ... -> is_even(0),
 *     which works 1 ms. So is_even: 30 calls (6 per run, 25 recursive), is_odd: 25 calls
 *     (5 per run, 20 recursive).
 * Never double counted: total(depth) = total of the outermost depth node ~= 5 ms, not
 * the ~ 21 x 5 ms a naive sum over nested instances would give; total(is_even) = total
 * of main/is_even; total(is_odd) = total of main/is_even/is_odd. Exit status 0. */
#include "truth.h"

static volatile int sink;

E2E_FN int depth(int n) {
  if (n == 0) {
    e2e_work_us(1000);
    return 0;
  }
  int r = depth(n - 1); /* not a tail call: the result is used after the return */
  sink += r;
  return r + 1;
}

E2E_FN void run_depth(void) { sink += depth(20); }

E2E_FN int is_odd(int n);

E2E_FN int is_even(int n) {
  if (n == 0) {
    e2e_work_us(1000);
    return 1;
  }
  int r = is_odd(n - 1);
  sink += r;
  return r;
}

E2E_FN int is_odd(int n) {
  if (n == 0) return 0;
  int r = is_even(n - 1);
  sink += r;
  return r;
}

int main(void) {
  for (int i = 0; i < 5; ++i) run_depth();
  for (int i = 0; i < 5; ++i) sink += is_even(10);
  return 0;
}

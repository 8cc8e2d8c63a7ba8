/* Recursion under probes: main -> fib(15) once: 2*F(16) - 1 = 1973 calls of fib, 2^d of
 * them at depth d for d <= 7; main -> down(49) x3: 50 nested calls each, 150 in all. The
 * asm after both recursive calls keeps them calls (no tail recursion, no accumulator). */
#include <stdio.h>

#include "truth.h"

E2E_FN long fib(int n) {
  if (n < 2) return n;
  long a = fib(n - 1);
  long b = fib(n - 2);
  __asm__ volatile("" : "+r"(a), "+r"(b));
  return a + b;
}

E2E_FN long down(int n) {
  long r = n == 0 ? 0 : down(n - 1) + 1;
  __asm__ volatile("" : "+r"(r));
  return r;
}

int main(void) {
  long f = fib(15);
  long d = 0;
  for (int i = 0; i < 3; ++i) d += down(49);
  printf("fib %ld down %ld\n", f, d);
  return 0;
}

/* Linked to libprobed_lib.so (probed_lib.c):
 *   main -> lib_outer(3) x5          -> lib_inner x3 each (15)
 *   main -> lib_own x4 (executable)  -> lib_inner x2 each (8)
 * lib_inner: 23 calls, lib_outer: 5. lib_own's name matches ^lib_ too, but lives in the
 * executable: --probe-module libprobed_lib leaves it out. */
#include <stdio.h>

#include "truth.h"

long lib_inner(long x);
long lib_outer(long n);

E2E_FN long lib_own(long x) {
  long s = lib_inner(x);
  s += lib_inner(x + 1);
  __asm__ volatile("" : "+r"(s));
  return s;
}

int main(void) {
  long s = 0;
  for (int i = 0; i < 5; ++i) s += lib_outer(3);
  for (int i = 0; i < 4; ++i) s += lib_own(i);
  printf("sum %ld\n", s);
  return 0;
}

/* A shared library of the probe-mode tests (libprobed_lib.so, -O2 -g -fPIC):
 * lib_outer(n) calls lib_inner n times. */
#include "truth.h"

static volatile long lib_sink;

E2E_FN long lib_inner(long x) {
  lib_sink += x;
  return x ^ 5;
}

E2E_FN long lib_outer(long n) {
  long s = 0;
  for (long i = 0; i < n; ++i) s += lib_inner(i);
  __asm__ volatile("" : "+r"(s));
  return s;
}

/* A tiny doubly recursive function, by construction: fib(27) makes 2 fib(28) - 1 = 635621
 * calls of about a nanosecond each when uninstrumented, where the hooks cost some 20 ns.
 * Prints the process CPU time fib took ("cpu_ns="), so the same source built with
 * -DE2E_PLAIN (no hooks) gives the truth for fib's compensated self time. Built as
 * programs are written: the compilers turn one of the two calls into a loop when no hooks
 * are in the way. */
#include <stdio.h>
#include <stdlib.h>

#include "truth.h"

#ifdef E2E_PLAIN
#define FN E2E_FN __attribute__((no_instrument_function))
#else
#define FN E2E_FN
#endif

FN unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

E2E_QUIET uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char** argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 27;
  uint64_t start = cpu_ns();
  unsigned r = fib(n);
  uint64_t spent = cpu_ns() - start;
  printf("fib=%u cpu_ns=%llu\n", r, (unsigned long long)spent);
  return 0;
}

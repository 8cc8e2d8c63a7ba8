/* For the debug-info tests (debug_info_test.cpp), built -O2 -g like a distribution's
 * program and then stripped: main -> outer, which calls hot() (30 ms of CPU) and warm()
 * (10 ms) four times each; both spend it in spin(). So the program's own functions on the
 * sampled stacks are main, outer, hot, warm and spin (and _start below main); spin() is
 * sampled at many addresses, all of one function. */
#include <stdint.h>
#include <time.h>

#include "truth.h"

static volatile unsigned long sink;

/* CPU time, not wall time: a loaded machine takes longer but samples the same functions. */
E2E_FN void spin(unsigned ms) {
  const uint64_t end = e2e_thread_cpu_ns() + ms * 1000000ull;
  while (e2e_thread_cpu_ns() < end)
    for (int i = 0; i < 1000; ++i) sink += i;
}

/* The increments after the calls keep them from being tail calls. */
E2E_FN void hot(void) {
  spin(30);
  sink++;
}

E2E_FN void warm(void) {
  spin(10);
  sink++;
}

E2E_FN void outer(void) {
  for (int k = 0; k < 4; ++k) {
    hot();
    warm();
  }
  sink++;
}

int main(void) {
  outer();
  return 0;
}

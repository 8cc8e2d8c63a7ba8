/* A program whose hooks cost next to nothing of its CPU time: main -> work x3, each about
 * 10 ms of arithmetic on the CPU that calls nothing (4 hooked calls against some 35 ms).
 * Prints nothing; exit status 0. */
#include "truth.h"

static volatile uint64_t sink;

E2E_FN void work(void) {
  uint64_t x = sink;
  for (uint64_t i = 0; i < 10000000u; ++i) x = x * 6364136223846793005u + i;
  sink = x;
}

int main(void) {
  for (int i = 0; i < 3; ++i) work();
  return 0;
}

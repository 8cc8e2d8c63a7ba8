/* Probe mode's budget and its limits, by construction (built -O2 -g without hooks):
 *   main -> slow x20, each 5 ms of work             (slow: 20 calls, ~5 ms of self each)
 *   main -> hot x100,000 after each slow            (hot: 2,000,000 tiny calls; probed all
 *                                                    the way, ~40 s of traps here)
 *   main -> far_caller x3 (unprobed, a 16 KiB frame) -> far x1 each
 *                                                   (far's entry stack cannot be unwound
 *                                                    past far_caller's frame from a copy of
 *                                                    512 bytes: under [truncated])
 * Prints "done" and exits 0. */
#include <stdio.h>
#include <string.h>

#include "truth.h"

static volatile long sink;

E2E_FN long hot(long x) { return x * 3 + 1; }

E2E_FN void slow(void) { e2e_work_us(5000); }

E2E_FN long far(long x) {
  sink += x;
  return x + 1;
}

E2E_FN long far_caller(long x) {
  volatile char frame[16384];
  memset((char*)frame, (int)x, sizeof frame);
  long r = far(frame[x & 1023]);
  __asm__ volatile("" : "+r"(r));
  return r + frame[100];
}

int main(void) {
  long s = 0;
  for (int round = 0; round < 20; ++round) {
    slow();
    for (long i = 0; i < 100000; ++i) s += hot(i);
  }
  for (int i = 0; i < 3; ++i) s += far_caller(i);
  sink = s;
  printf("done\n");
  return 0;
}

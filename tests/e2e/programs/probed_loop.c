/* Runs until killed, to be attached to: main -> cycle, forever; cycle -> inner x3, then a
 * 1 ms sleep. Prints "ready" once running. */
#include <stdio.h>
#include <time.h>

#include "truth.h"

static volatile long sink;

E2E_FN void inner(long x) { sink += x; }

/* The barrier keeps the last call a call: without it both compilers end cycle with
 * `jmp inner`, and that inner's caller is main. */
E2E_FN void cycle(long x) {
  for (int i = 0; i < 3; ++i) inner(x + i);
  __asm__ volatile("" ::: "memory");
}

int main(void) {
  printf("ready\n");
  fflush(stdout);
  struct timespec ts = {0, 1000000};
  for (long i = 0;; ++i) {
    cycle(i);
    nanosleep(&ts, NULL);
  }
}

/* Probe mode's truth by construction (built -O2 -g without hooks; every counted function
 * noinline/noipa so the calls stay calls):
 *   main -> outer x3          -> leaf x10 each        (main > outer > leaf: 30)
 *   main -> other x2          -> leaf x5 each         (main > other > leaf: 10)
 *   main -> leaf x7                                   (main > leaf: 7)
 *   main -> other x2 ... and outer x3 -> hidden x1 each (unprobed) -> leaf x4 each
 *                                                     (main > outer > hidden > leaf: 12)
 *   main -> via_tail x4       -> tail_target x1 each, by a sibling call (a tail jump at -O2)
 * leaf: 30 + 10 + 7 + 12 = 59 calls. With an argument "jump": main -> jump_only x6, whose
 * whole body is `jmp tail_target` (its entry is its exit). With an argument "nap": main -> napper x10, each
 * asleep 2 ms. With "napspin": the ten naps, then main -> spinner x1, ~100 M additions on the
 * CPU. With "exit3": prints a line and exits with status 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "truth.h"

static volatile long sink;

E2E_FN long leaf(long x) {
  sink += x;
  return x * 3 + 1;
}

E2E_FN long hidden(long x) {
  long s = 0;
  for (int i = 0; i < 4; ++i) s += leaf(x + i);
  __asm__ volatile("" : "+r"(s));
  return s;
}

E2E_FN long outer(long x) {
  long s = 0;
  for (int i = 0; i < 10; ++i) s += leaf(x + i);
  s += hidden(s);
  __asm__ volatile("" : "+r"(s));
  return s;
}

E2E_FN long other(long x) {
  long s = 0;
  for (int i = 0; i < 5; ++i) s += leaf(x * i);
  __asm__ volatile("" : "+r"(s));
  return s;
}

E2E_FN long tail_target(long x) {
  sink += x;
  return x + 7;
}

/* A call in tail position: both compilers emit `jmp tail_target` at -O2. */
E2E_FN long via_tail(long x) { return tail_target(x * 2); }

/* Nothing but a tail call with the same argument: one instruction, `jmp tail_target`. */
E2E_FN long jump_only(long x) { return tail_target(x); }

E2E_FN void napper(void) {
  struct timespec ts = {0, 2000000};
  nanosleep(&ts, NULL);
}

E2E_FN void spinner(void) {
  for (long i = 0; i < 100000000; ++i) sink += i;
}

int main(int argc, char** argv) {
  if (argc > 1 && (strcmp(argv[1], "nap") == 0 || strcmp(argv[1], "napspin") == 0)) {
    for (int i = 0; i < 10; ++i) napper();
    if (strcmp(argv[1], "napspin") == 0) spinner();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "jump") == 0) {
    long s = 0;
    for (int i = 0; i < 6; ++i) s += jump_only(i);
    printf("sum %ld\n", s);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "exit3") == 0) {
    printf("leaf %ld\n", leaf(13));
    fflush(stdout);
    exit(3);
  }
  long s = 0;
  for (int i = 0; i < 3; ++i) s += outer(i);
  for (int i = 0; i < 2; ++i) s += other(i);
  for (int i = 0; i < 7; ++i) s += leaf(i);
  for (int i = 0; i < 4; ++i) s += via_tail(i);
  printf("sum %ld\n", s);
  return 0;
}

/* Calls made by a signal handler count like any other, by construction: a 5 kHz interval
 * timer (SIGALRM) interrupts main's loop of tiny() calls until the instrumented handler
 * on_tick has run 300 times. The program counts both itself and prints
 * "ticks <n> tiny <m>". Truth: on_tick's calls = n and tiny's calls = m, exactly (SPEC
 * 1.1: every call is counted; SPEC 6: call counts exact in every test program).
 * Exit status 0. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#include "truth.h"

static volatile sig_atomic_t ticks;
static volatile unsigned long tiny_calls;

E2E_FN void on_tick(int sig) {
  (void)sig;
  ticks++;
}

E2E_FN void tiny(void) { tiny_calls++; }

int main(void) {
  signal(SIGALRM, on_tick);
  struct itimerval every_200us = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &every_200us, NULL);
  while (ticks < 300) tiny();
  setitimer(ITIMER_REAL, &off, NULL);
  printf("ticks %d tiny %lu\n", (int)ticks, tiny_calls);
  return 0;
}

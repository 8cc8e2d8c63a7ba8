/* A timeout implemented with a timer signal and siglongjmp, as test harnesses and
 * interpreters do, by construction: main -> one_round x200; one_round arms a 100 us
 * one-shot timer (SIGALRM) and calls busy_loop, which calls tiny() until the handler
 * on_alarm siglongjmps back into one_round. Most of busy_loop's time is spent inside the
 * instrumentation hooks, so the signal usually lands in one.
 * Truth: one_round 200 calls, busy_loop 200 (or one fewer per timer that lands in
 * busy_loop's own entry hook, which the jump leaves before the call is recorded); tiny as many calls as the program
 * counted (it prints "rounds 200 tiny <n>"), give or take one per round (a jump out of tiny's entry hook may leave a
 * call whose body never ran). Exit status 0. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#include "truth.h"

static sigjmp_buf env;
static volatile unsigned long tiny_calls;

E2E_FN void on_alarm(int sig) {
  (void)sig;
  siglongjmp(env, 1);
}

E2E_FN void tiny(void) { tiny_calls++; }

E2E_FN void busy_loop(void) {
  for (;;) tiny();
}

E2E_FN void one_round(void) {
  if (sigsetjmp(env, 1) == 0) {
    struct itimerval once = {{0, 0}, {0, 100}};
    setitimer(ITIMER_REAL, &once, NULL);
    busy_loop();
  }
}

int main(void) {
  signal(SIGALRM, on_alarm);
  for (int i = 0; i < 200; ++i) one_round();
  printf("rounds 200 tiny %lu\n", tiny_calls);
  return 0;
}

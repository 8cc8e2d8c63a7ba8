/* Times stay right when the process is preempted while the runtime pairs its clocks.
 * The runtime converts TSC ticks to nanoseconds with a rate taken from (TSC, CLOCK_MONOTONIC)
 * pairs read at start-up and at exit. On a loaded machine the process can lose the CPU
 * between the two reads of a pair. This program makes that happen every time: it
 * interposes clock_gettime (exported with -rdynamic, so the preloaded runtime's calls
 * reach it too), and the first CLOCK_MONOTONIC read before main, which is the runtime's
 * start-up read, first sleeps 30 ms, as a preemption would.
 * Then main -> work x10, 10 ms of wall time each (e2e_work_us); the program measures
 * the loop itself and prints "work_ns=<n>". Truth: work's total = n (about 100 ms).
 * Exit status 0. */
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

static int in_main, preempted;

__attribute__((no_instrument_function)) int clock_gettime(clockid_t id, struct timespec* ts) {
  if (!in_main && !preempted && id == CLOCK_MONOTONIC) {
    preempted = 1;
    struct timespec lost = {0, 30 * 1000 * 1000};
    syscall(SYS_nanosleep, &lost, NULL);
  }
  return (int)syscall(SYS_clock_gettime, id, ts);
}

E2E_FN void work(void) { e2e_work_us(10000); }

int main(void) {
  in_main = 1;
  const uint64_t start = e2e_now_ns();
  for (int i = 0; i < 10; ++i) work();
  printf("work_ns=%llu\n", (unsigned long long)(e2e_now_ns() - start));
  return preempted ? 0 : 1; /* 1: the runtime's start-up read never came through here */
}

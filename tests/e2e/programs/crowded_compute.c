/* CPU time that reads the same on a quiet and a crowded machine, by construction:
 *   crunch()   arithmetic only, no calls and no system calls: all its time is on the CPU
 *              or waiting for one; prints the CPU time its thread really got
 *              ("crunch cpu_ns=...", CLOCK_THREAD_CPUTIME_ID);
 *   stepper()  the same kind of work in 4 M calls of a tiny step(), where the hooks' cost
 *              (removed by compensation) is most of the time; prints its thread's CPU
 *              time, hooks included ("stepper cpu_ns=..."), and its wall time ("stepper
 *              wall_ns=..."): what was not CPU time of the pair was waiting for a CPU.
 * The test runs it alone and next to busy loops (one per core): preemption then makes the
 * wall time grow, and that growth must show as waiting for a CPU, never as CPU time or as
 * blocking. Exit status 0. */
#define _GNU_SOURCE
#include <stdio.h>

#include "truth.h"

static volatile uint64_t sink;

E2E_FN void crunch(long n) {
  uint64_t cpu0 = e2e_thread_cpu_ns(), x = 1;
  for (long i = 0; i < n; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  sink = x;
  printf("crunch cpu_ns=%llu\n", (unsigned long long)(e2e_thread_cpu_ns() - cpu0));
}

E2E_FN uint64_t step(uint64_t x) { return x * 2654435761u + 1; }

E2E_FN void stepper(long n) {
  uint64_t wall0 = e2e_now_ns(), cpu0 = e2e_thread_cpu_ns(), x = 1;
  for (long i = 0; i < n; ++i) x = step(x);
  sink = x;
  const uint64_t cpu = e2e_thread_cpu_ns() - cpu0, wall = e2e_now_ns() - wall0;
  printf("stepper cpu_ns=%llu\nstepper wall_ns=%llu\n", (unsigned long long)cpu, (unsigned long long)wall);
}

int main(void) {
  crunch(150000000);
  stepper(4000000);
  return 0;
}

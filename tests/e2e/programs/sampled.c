/* For sampling mode (built without instrumentation hooks, -O2 -g like Debian's defaults):
 * main -> work, which calls heavy() (30 ms of CPU) and light() (10 ms) ten times each:
 * heavy 300 ms, light 100 ms, a 3:1 split of the CPU time. Then nap() sleeps 200 ms
 * (off-CPU). `sampled forever` repeats the work until killed (for attach).
 * `sampled fork`: first forks a child that runs child_burn() (100 ms of CPU) and exits;
 * the parent waits for it, then works as above. */
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

static volatile unsigned long sink;

/* CPU time, not wall time: on a loaded machine the split stays 3:1. */
E2E_FN void burn_ms(unsigned ms) {
  uint64_t end = e2e_thread_cpu_ns() + ms * 1000000ull;
  while (e2e_thread_cpu_ns() < end)
    for (int i = 0; i < 1000; ++i) sink += i;
}

/* The increments after the calls keep them from being tail calls (jumps): a sampled stack
 * shows only functions that still have a frame. */
E2E_FN void heavy(void) {
  burn_ms(30);
  sink++;
}
E2E_FN void light(void) {
  burn_ms(10);
  sink++;
}

E2E_FN void work(void) {
  for (int k = 0; k < 10; ++k) {
    heavy();
    light();
  }
  sink++;
}

E2E_FN void nap(void) {
  struct timespec t = {0, 200000000};
  while (nanosleep(&t, &t) != 0) {
  }
}

E2E_FN void child_burn(void) {
  burn_ms(100);
  sink++;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "fork") == 0) {
    pid_t child = fork();
    if (child == 0) {
      child_burn();
      _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 1;
  }
  do work();
  while (argc > 1 && strcmp(argv[1], "forever") == 0);
  nap();
  return 0;
}

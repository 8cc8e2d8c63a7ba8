/* For the honest-stacks tests (sampling mode, built without hooks like Debian's -O2 -g):
 *   stacks inline   outer() runs squares(), a helper always inlined into it, for 300 ms of CPU:
 *                   every sample in its loop has the inline chain outer > squares.
 *   stacks plt      spin_plt() calls labs() through the PLT in a loop for 300 ms of CPU:
 *                   a share of the samples lands in the stub itself (labs@plt). Build
 *                   with -fno-builtin, or the compiler computes labs itself.
 *   stacks thread   a thread runs thread_work() > thread_hot() for 300 ms of CPU while main
 *                   waits for it: its stacks begin at the C library's thread start.
 *   stacks deep     descend() recurses 40 levels, each with 512 bytes of stack (some 21 KiB
 *                   in all), and deep_hot() at the bottom runs 300 ms of CPU: deeper than
 *                   the 8 KiB stack copy of --call-graph dwarf, and shallow enough for the
 *                   JSON report's nested tree (80 levels). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "truth.h"

static volatile unsigned long sink;
static volatile long negative = -3;

/* The work between clock reads is long, so few samples land in clock_gettime. */
static inline __attribute__((always_inline)) unsigned long squares(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i) s += i * i + sink;
  return s;
}

E2E_FN void outer(unsigned ms) {
  const uint64_t end = e2e_thread_cpu_ns() + ms * 1000000ull;
  while (e2e_thread_cpu_ns() < end) sink += squares(20000);
  sink++;
}

/* The call is what the loop does, between a random 0-3 empty iterations: a loop of fixed
 * period puts cpu-clock samples on the same few instructions run after run (on this VM 0 to
 * 15 % in the stub), the jitter spreads them by time (6-10 % in the stub). */
E2E_FN void spin_plt(unsigned ms) {
  const uint64_t end = e2e_thread_cpu_ns() + ms * 1000000ull;
  unsigned long r = 88172645463325252ull, s = 0;
  const long x = negative;
  while (e2e_thread_cpu_ns() < end)
    for (int i = 0; i < 20000; ++i) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      for (unsigned k = r & 3; k > 0; --k) __asm__ volatile("" ::: "memory");
      s += (unsigned long)labs(x - i);
    }
  sink += s;
}

E2E_FN void thread_hot(unsigned ms) {
  const uint64_t end = e2e_thread_cpu_ns() + ms * 1000000ull;
  while (e2e_thread_cpu_ns() < end)
    for (int i = 0; i < 20000; ++i) sink += (unsigned long)i;
  sink++;
}

E2E_FN void* thread_work(void* arg) {
  (void)arg;
  thread_hot(300);
  sink++;
  return NULL;
}

E2E_FN void deep_hot(unsigned ms) {
  const uint64_t end = e2e_thread_cpu_ns() + ms * 1000000ull;
  while (e2e_thread_cpu_ns() < end)
    for (int i = 0; i < 20000; ++i) sink += (unsigned long)i;
  sink++;
}

E2E_FN unsigned long descend(int depth) {
  volatile unsigned char frame[512];
  frame[depth & 511] = (unsigned char)depth;
  if (depth == 0)
    deep_hot(300);
  else
    sink += descend(depth - 1);
  return frame[depth & 511];
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  if (strcmp(what, "inline") == 0) outer(300);
  if (strcmp(what, "plt") == 0) spin_plt(300);
  if (strcmp(what, "deep") == 0) sink += descend(40);
  if (strcmp(what, "thread") == 0) {
    pthread_t t;
    if (pthread_create(&t, NULL, thread_work, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
  }
  return 0;
}

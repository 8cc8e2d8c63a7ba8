/* The probe benchmark's program: calls fn() N times (argv[1], default 200000) and prints
 * calls=N and elapsed_ns, the time of the loop alone (the tracers' start-up and writing
 * are left out). fn is noinline, not cloned, and its result feeds a checksum through an
 * empty asm barrier, so every call stays a call with one entry and one `ret`. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline, noclone)) long fn(long x) {
  __asm__ volatile("" : "+r"(x));
  return x * 3 + 1;
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 200000;
  long sum = 0;
  const long long start = now_ns();
  for (long i = 0; i < n; ++i) sum += fn(i);
  const long long elapsed = now_ns() - start;
  printf("calls=%ld sum=%ld elapsed_ns=%lld\n", n, sum, elapsed);
  return 0;
}

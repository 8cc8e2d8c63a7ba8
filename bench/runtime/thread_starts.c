/* Thread start and end under exact mode: N threads, one after the other, each calling one
 * hooked function once. What a program that starts many short threads pays per thread
 * (the runtime's per-thread set-up: its memory reservation, first pages, registration,
 * teardown). Prints "threads=N elapsed_ns=T" (the loop alone). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int work(int x) { return x * 3 + 1; }

static void* body(void* p) { return (void*)(long)work((int)(long)p); }

__attribute__((no_instrument_function)) static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000ll + t.tv_nsec;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 3000;
  long sum = 0;
  const long long start = now_ns();
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    void* r;
    if (pthread_create(&t, 0, body, (void*)(long)i) != 0 || pthread_join(t, &r) != 0) return 1;
    sum += (long)r;
  }
  printf("threads=%d elapsed_ns=%lld sum=%ld\n", n, now_ns() - start, sum);
  return 0;
}

/* bench/attach: a program to attach exact mode to (issue 31). THREADS threads (argv[1],
 * default 8) each loop calling a(), which calls b() three times; a monitor thread prints
 * "rate N" every 250 ms: calls per second (a's and b's) over the last interval, from
 * per-thread counters in their own cache lines. SECONDS (argv[2], default 0: until
 * SIGUSR1) ends the run. At the end each thread checks b == 3 a and main prints
 * "check ok" (or "check MISMATCH", exit 3). Built with the exact-mode hook flags, started
 * on its own: its hooks are glibc's empty ones until callprof attaches. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

struct counter {
  volatile uint64_t a, b;
  char pad[48];
};
static struct counter counts[64];
static volatile sig_atomic_t stop;
static volatile unsigned sink;
static int failed;
static __thread struct counter* mine;

NOINLINE void b(void) {
  mine->b = mine->b + 1;
  for (int i = 0; i < 10; ++i) sink = sink + (unsigned)i;
}
NOINLINE void a(void) {
  mine->a = mine->a + 1;
  b();
  b();
  b();
}

static void* worker(void* arg) {
  mine = &counts[(intptr_t)arg];
  while (!stop) a();
  if (mine->b != 3 * mine->a) __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
  return NULL;
}

static uint64_t total(int threads) {
  uint64_t n = 0;
  for (int i = 0; i < threads; ++i) n += counts[i].a * 4;
  return n;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void* monitor(void* arg) {
  const int threads = (int)(intptr_t)arg;
  uint64_t last = total(threads);
  double at = now();
  while (!stop) {
    usleep(250000);
    const uint64_t n = total(threads);
    const double t = now();
    printf("rate %.0f\n", (double)(n - last) / (t - at));
    fflush(stdout);
    last = n, at = t;
  }
  return NULL;
}

static void on_usr1(int sig) {
  (void)sig;
  stop = 1;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 8;
  const int seconds = argc > 2 ? atoi(argv[2]) : 0;
  if (threads < 1 || threads > 64) return 2;
  signal(SIGUSR1, on_usr1);
  pthread_t t[64], m;
  for (int i = 1; i < threads; ++i) pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i);
  pthread_create(&m, NULL, monitor, (void*)(intptr_t)threads);
  if (seconds > 0) alarm((unsigned)seconds), signal(SIGALRM, on_usr1);
  worker((void*)0);
  for (int i = 1; i < threads; ++i) pthread_join(t[i], NULL);
  pthread_join(m, NULL);
  printf("check %s\n", failed ? "MISMATCH" : "ok");
  return failed ? 3 : 0;
}

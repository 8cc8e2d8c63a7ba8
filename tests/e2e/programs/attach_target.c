/* A program to attach exact mode to (issue 31), started normally (glibc's empty hooks):
 * THREADS threads (argv[1], default 1) each loop calling a(), which calls b() three times,
 * and count their own calls in plain thread-local variables. SIGUSR1 asks them to stop
 * between two a() calls; each checks b == 3 a, and main prints "checked N threads: ok"
 * and exits 0 (3 on a mismatch). It prints "ready" once every thread runs.
 * Truth in any attached window: calls of b = 3 x calls of a, within 3 per thread (the
 * calls open at the window's edges).
 * With "split" as argv[2] the threads instead call x() and y() in turn; both call d(),
 * x's call working 3 ms and y's 1 ms (e2e_work_us): d's time is 75 % x's, 25 % y's.
 * With "fork" as argv[2] the main thread, instead of calling a(), forks a child every
 * 20 ms whose spawned() calls a() exactly 1000 times and exits (0; 4 if its b != 3 a).
 * With "sorting" as argv[3] too, it spends those 20 ms inside libc's qsort instead of
 * sleeping: never at a safe point to be borrowed and calling no hook, it is a thread the
 * attached runtime has not met when it forks.
 * With "exec" as argv[2] the main thread sleeps 0.6 s, then executes the program again
 * with one thread (which prints "ready" again and runs until SIGUSR1).
 * With "threads" as argv[2] the main thread starts a thread every 5 ms whose
 * short_lived() calls a() exactly 1000 times, and joins it.
 * With "alarms" as argv[2] a timer's SIGALRM every millisecond runs on_alarm(), which
 * calls a() too, on whichever thread it interrupts.
 * With "idle" as argv[2] every thread waits on a condition variable for 30 ms at a time
 * (pthread_cond_timedwait), then calls a() 100 times: an idle pool, nearly always in futex.
 * With "deep" as argv[2] the main thread recurses 60,000 calls deep again and again
 * (deep()): as many call paths, a tree of megabytes while attached.
 * With "naps" as argv[2] every thread sleeps in napping(), 2 ms at a time, until asked
 * to stop: it calls no hooked function, mostly off the CPU.
 * With "jumps" as argv[2] the threads instead call jumper(), whose thrower() calls a() and
 * longjmps back to jumper, which then sleeps 1 ms (no hook): thrower's time ends at the
 * jump, jumper's includes the sleep.
 * With "cold" as argv[2] every thread sleeps as with "naps", but in cold_napping(), whose
 * sleeping loop follows a call of a cold function: GCC moves it to cold_napping.cold. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

static volatile sig_atomic_t g_stop;
static volatile unsigned g_sink;
static __thread uint64_t t_a, t_b;
static int g_failed;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

E2E_FN void b(void) {
  ++t_b;
  for (int i = 0; i < 20; ++i) g_sink = g_sink + (unsigned)i;
}
E2E_FN void a(void) {
  ++t_a;
  b();
  b();
  b();
}

static __thread jmp_buf t_env;
E2E_FN static void thrower(void) {
  a();
  longjmp(t_env, 1);
}
E2E_FN static void jumper(void) {
  if (setjmp(t_env) == 0)
    thrower();
  else
    usleep(1000);
}

E2E_FN void d(unsigned ms) { e2e_work_us(ms * 1000u); }
E2E_FN void x(void) { d(3); }
E2E_FN void y(void) { d(1); }

static int g_split, g_idle, g_jumps, g_naps;

E2E_FN static void napping(void) {
  while (!g_stop) usleep(2000);
}
static volatile int g_cold;
static volatile unsigned g_cold_notes;
__attribute__((cold, noinline, no_instrument_function)) static void note_cold(void) { ++g_cold_notes; }
E2E_FN static void cold_napping(void) {
  if (g_cold) { /* always, but the cold call says never: this goes to the cold part */
    note_cold();
    while (!g_stop) usleep(2000);
  }
}
static pthread_cond_t g_never = PTHREAD_COND_INITIALIZER;

E2E_FN static void idle_wait(void) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += 30 * 1000 * 1000;
  if (until.tv_nsec >= 1000000000) until.tv_sec += 1, until.tv_nsec -= 1000000000;
  pthread_mutex_lock(&g_lock);
  pthread_cond_timedwait(&g_never, &g_lock, &until);
  pthread_mutex_unlock(&g_lock);
}

E2E_FN static unsigned deep(unsigned n) { return n == 0 ? g_sink : deep(n - 1) + 1; }

E2E_FN static void spawned(void) {
  for (int i = 0; i < 1000; ++i) a();
}

E2E_FN static void* short_lived(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; ++i) a();
  pthread_mutex_lock(&g_lock);
  if (t_b != 3 * t_a) g_failed = 1;
  pthread_mutex_unlock(&g_lock);
  return NULL;
}

E2E_FN static void start_threads(void) {
  while (!g_stop) {
    pthread_t t;
    if (pthread_create(&t, NULL, short_lived, NULL) == 0) pthread_join(t, NULL);
    usleep(5000);
  }
}

static int g_sorting;

static __attribute__((no_instrument_function)) int by_value(const void* x, const void* y) {
  const unsigned l = *(const unsigned*)x, r = *(const unsigned*)y;
  return (l > r) - (l < r);
}

/* About 20 ms, nearly all of it inside qsort (libc's frames on top: no safe point). */
E2E_QUIET void sort_for_20ms(void) {
  static unsigned v[4096];
  const uint64_t end = e2e_now_ns() + 20000000u;
  while (e2e_now_ns() < end) {
    for (unsigned i = 0; i < 4096; ++i) v[i] = i * 2654435761u;
    qsort(v, 4096, sizeof v[0], by_value);
  }
}

/* Forks children until asked to stop; 0 when every child exited 0. */
E2E_FN static int fork_children(void) {
  int failed = 0;
  while (!g_stop) {
    const pid_t child = fork();
    if (child == 0) {
      t_a = t_b = 0;
      spawned();
      exit(t_b == 3 * t_a ? 0 : 4);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
    if (g_sorting)
      sort_for_20ms();
    else
      usleep(20000);
  }
  return failed;
}

E2E_FN static void* worker(void* arg) {
  (void)arg;
  while (!g_stop) {
    if (g_jumps) {
      jumper();
      continue;
    }
    if (g_naps) {
      napping();
      continue;
    }
    if (g_cold) {
      cold_napping();
      continue;
    }
    if (g_idle) {
      idle_wait();
      for (int i = 0; i < 100; ++i) a();
      continue;
    }
    if (!g_split) {
      a();
      continue;
    }
    x();
    y();
  }
  pthread_mutex_lock(&g_lock);
  if (t_b != 3 * t_a) g_failed = 1;
  pthread_mutex_unlock(&g_lock);
  return NULL;
}

E2E_FN static void on_alarm(int sig) {
  (void)sig;
  a();
}

static void on_usr1(int sig) {
  (void)sig;
  g_stop = 1;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 1;
  g_split = argc > 2 && argv[2][0] == 's';
  const int forking = argc > 2 && argv[2][0] == 'f';
  g_sorting = argc > 3 && argv[3][0] == 's';
  const int executing = argc > 2 && argv[2][0] == 'e';
  const int threading = argc > 2 && argv[2][0] == 't';
  g_idle = argc > 2 && argv[2][0] == 'i';
  g_naps = argc > 2 && argv[2][0] == 'n';
  g_jumps = argc > 2 && argv[2][0] == 'j';
  g_cold = argc > 2 && argv[2][0] == 'c';
  if (argc > 2 && argv[2][0] == 'a') {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    const struct itimerval every_ms = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_REAL, &every_ms, NULL);
  }
  signal(SIGUSR1, on_usr1);
  pthread_t t[64];
  for (int i = 1; i < threads && i < 64; ++i) pthread_create(&t[i], NULL, worker, NULL);
  printf("ready\n");
  fflush(stdout);
  if (executing) {
    usleep(600000);
    execl("/proc/self/exe", argv[0], "1", (char*)NULL);
    return 5;
  }
  if (argc > 2 && argv[2][0] == 'd')
    while (!g_stop) g_sink = deep(60000);
  else if (threading)
    start_threads();
  else if (forking)
    g_failed |= fork_children();
  else
    worker(NULL);
  for (int i = 1; i < threads && i < 64; ++i) pthread_join(t[i], NULL);
  printf("checked %d threads: %s\n", threads, g_failed ? "MISMATCH" : "ok");
  return g_failed ? 3 : 0;
}

/* On-CPU versus off-CPU time, by construction:
 *   spin()     busy for 100 ms of wall time; prints the CPU time its thread really got
 *              ("spin cpu_ns=... wall_ns=...", CLOCK_THREAD_CPUTIME_ID), so the check
 *              holds on a loaded machine too (preemption moves time from CPU to off-CPU);
 *   nap()      sleeps 100 ms (nanosleep): almost all off-CPU;
 *   wait_ready() blocks on a condition variable that a helper thread signals after
 *              50 ms: ~50 ms off-CPU;
 *   crowd()    starts 4 threads, all on one CPU (the first the program may use, so on
 *              any machine), that each burn 150 ms of CPU in burn(); they compete, so
 *              each burn() spends time preempted (about 450 ms of its 600).
 * Exit status 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "truth.h"

static volatile uint64_t sink;

E2E_FN void spin(void) {
  uint64_t cpu0 = e2e_thread_cpu_ns(), start = e2e_now_ns();
  while (e2e_now_ns() - start < 100000000u) sink++;
  printf("spin cpu_ns=%llu wall_ns=%llu\n", (unsigned long long)(e2e_thread_cpu_ns() - cpu0),
         (unsigned long long)(e2e_now_ns() - start));
}

E2E_FN void nap(void) {
  struct timespec t = {0, 100000000};
  while (nanosleep(&t, &t) == EINTR) {
  }
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
static int ready;

E2E_FN void* signaller(void* arg) {
  struct timespec t = {0, 50000000};
  nanosleep(&t, NULL);
  pthread_mutex_lock(&lock);
  ready = 1;
  pthread_cond_signal(&ready_cv);
  pthread_mutex_unlock(&lock);
  return arg;
}

E2E_FN void wait_ready(void) {
  pthread_mutex_lock(&lock);
  while (!ready) pthread_cond_wait(&ready_cv, &lock);
  pthread_mutex_unlock(&lock);
}

E2E_FN void burn(void) {
  uint64_t cpu0 = e2e_thread_cpu_ns();
  while (e2e_thread_cpu_ns() - cpu0 < 150000000u) sink++;
}

E2E_FN void* cruncher(void* arg) {
  burn();
  return arg;
}

E2E_FN void crowd(void) {
  cpu_set_t allowed, one;
  CPU_ZERO(&one);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) {
        CPU_SET(c, &one);
        break;
      }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (CPU_COUNT(&one) == 1) pthread_attr_setaffinity_np(&attr, sizeof one, &one);
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) pthread_create(&t[i], &attr, cruncher, NULL);
  pthread_attr_destroy(&attr);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
}

int main(void) {
  spin();
  nap();
  pthread_t helper;
  pthread_create(&helper, NULL, signaller, NULL);
  wait_ready();
  pthread_join(helper, NULL);
  crowd();
  return 0;
}

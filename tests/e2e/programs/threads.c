/* Four threads doing different amounts of work, by construction:
 *   main -> spawn_workers, which calls pthread_create four times (start routines
 *   worker1..worker4) and joins them. Worker k names itself "worker-k" and calls unit()
 *   10*k times; a unit is 2 ms of wall time (e2e_work_us). worker4 then leaves through
 *   leave_thread, which calls pthread_exit two frames down.
 * Truth: five threads in one process; each worker's creator is main's thread, its
 * creator_path is main -> spawn_workers, its start routine is worker<k>; worker k's thread
 * makes exactly 1 + 10*k calls (worker4's: 42, leave_thread included); unit runs 100
 * times in all; the workers' totals stand 1 : 2 : 3 : 4 (20, 40, 60, 80 ms). Each worker
 * measures its own wall time and main prints it ("worker k ns=..."). Exit status 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "truth.h"

#define UNIT_US 2000

static volatile int sink;
static uint64_t measured_ns[5];

E2E_FN void unit(void) {
  e2e_work_us(UNIT_US);
  sink++;
}

E2E_FN void leave_thread(void) { pthread_exit(NULL); }

E2E_QUIET void* work(int k) {
  char name[16];
  snprintf(name, sizeof name, "worker-%d", k);
  pthread_setname_np(pthread_self(), name);
  uint64_t start = e2e_now_ns();
  for (int i = 0; i < 10 * k; ++i) unit();
  measured_ns[k] = e2e_now_ns() - start;
  if (k == 4) leave_thread();
  return NULL;
}

E2E_FN void* worker1(void* arg) { return work(1), arg; }
E2E_FN void* worker2(void* arg) { return work(2), arg; }
E2E_FN void* worker3(void* arg) { return work(3), arg; }
E2E_FN void* worker4(void* arg) { return work(4), arg; }

E2E_FN int spawn_workers(void) {
  void* (*routines[4])(void*) = {worker1, worker2, worker3, worker4};
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i)
    if (pthread_create(&threads[i], NULL, routines[i], NULL) != 0) return 1;
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  return 0;
}

int main(void) {
  if (spawn_workers() != 0) return 1;
  for (int k = 1; k <= 4; ++k) printf("worker %d ns=%llu\n", k, (unsigned long long)measured_ns[k]);
  return 0;
}

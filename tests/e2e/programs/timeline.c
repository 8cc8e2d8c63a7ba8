/* A timeline known by construction (record --timeline, export --format chrome):
 *   main -> outer() twice; outer does 10 ms of work, then calls inner() twice; inner does
 *   5 ms. So each outer lasts at least 20 ms and holds two inner calls of at least 5 ms,
 *   one after the other. main also calls tiny() 1000 times: each far below 10 us, too
 *   short for the default --timeline-min-duration. A second thread, which names itself
 *   "tl-worker", runs worker_main -> work(), 20 ms, while main waits for it to finish.
 * Truth: on main's thread the X events outer (2), inner (4, each inside an outer, two per
 * outer, not overlapping), main (1, enclosing all); on the worker's thread work (1,
 * >= 20 ms) inside worker_main; tiny never (or almost never, if preempted). Exit 0. */
#define _GNU_SOURCE
#include <pthread.h>

#include "truth.h"

static volatile int sink;

E2E_FN void tiny(void) { sink++; }

E2E_FN void inner(void) { e2e_work_us(5000); }

E2E_FN void outer(void) {
  e2e_work_us(10000);
  inner();
  inner();
}

E2E_FN void work(void) { e2e_work_us(20000); }

E2E_FN void* worker_main(void* arg) {
  pthread_setname_np(pthread_self(), "tl-worker");
  work();
  return arg;
}

int main(void) {
  pthread_t worker;
  if (pthread_create(&worker, NULL, worker_main, NULL) != 0) return 1;
  pthread_join(worker, NULL);
  for (int i = 0; i < 1000; ++i) tiny();
  outer();
  outer();
  return 0;
}

/* 4 threads: thread k (1..4) calls tick() 1000*k times from worker(); main calls tick()
 * 5 times itself. The workers start together (a barrier) so they overlap. */
#include <pthread.h>
#include <stdio.h>

#include "truth.h"

static volatile long sink;
static pthread_barrier_t start;

E2E_FN void tick(long k) { sink += k; }

E2E_FN void* worker(void* arg) {
  long k = (long)arg;
  pthread_barrier_wait(&start);
  for (long i = 0; i < 1000 * k; ++i) tick(k);
  return NULL;
}

int main(void) {
  pthread_t t[4];
  pthread_barrier_init(&start, NULL, 4);
  for (long k = 1; k <= 4; ++k) pthread_create(&t[k - 1], NULL, worker, (void*)k);
  for (int k = 0; k < 4; ++k) pthread_join(t[k], NULL);
  for (int i = 0; i < 5; ++i) tick(0);
  printf("sink %ld\n", sink);
  return 0;
}

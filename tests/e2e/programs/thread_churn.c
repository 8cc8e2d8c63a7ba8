/* Threads that start and end all the time while snapshots are taken: 60 waves of 4
 * threads; each thread runs worker(), which calls nap() 3 times (a 300 us sleep, so the
 * thread is switched out and its off-CPU ring gets records) and exits. Main joins each
 * wave before starting the next. With the argument "signal", main raises SIGUSR2 (the
 * snapshot signal in the test) in each wave while the threads run.
 * Truth: worker 240 calls, nap 720, spawn_wave 60, main 1; 241 threads; exit status 0,
 * "waves 60" on stdout. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "truth.h"

#define WAVES 60
#define PER_WAVE 4

E2E_FN void nap(void) {
  struct timespec t = {0, 300000};
  nanosleep(&t, NULL);
}

E2E_FN void* worker(void* arg) {
  for (int i = 0; i < 3; ++i) nap();
  return arg;
}

E2E_FN void spawn_wave(int with_signal) {
  pthread_t t[PER_WAVE];
  for (int i = 0; i < PER_WAVE; ++i) pthread_create(&t[i], NULL, worker, NULL);
  if (with_signal) raise(SIGUSR2);
  for (int i = 0; i < PER_WAVE; ++i) pthread_join(t[i], NULL);
}

int main(int argc, char** argv) {
  const int with_signal = argc > 1 && strcmp(argv[1], "signal") == 0;
  for (int w = 0; w < WAVES; ++w) spawn_wave(with_signal);
  printf("waves %d\n", WAVES);
  return 0;
}

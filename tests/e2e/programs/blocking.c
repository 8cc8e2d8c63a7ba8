/* Threads that block for known durations, for sampling's off-CPU mode (built without
 * hooks). Concurrently, from main:
 *   sleeper()     nanosleep 150 ms;
 *   waiter()      pthread_cond_wait until main signals after 100 ms;
 *   poller()      epoll_wait on an empty epoll set with an 80 ms timeout;
 *   reader()      read() on a pipe that main writes after 120 ms.
 * main itself waits in pthread_join. Exit status 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;
static int pipefd[2];
static volatile int sink;

E2E_FN void sleeper(void) {
  struct timespec t = {0, 150000000};
  nanosleep(&t, NULL);
  sink++;
}
E2E_FN void waiter(void) {
  pthread_mutex_lock(&lock);
  while (!go) pthread_cond_wait(&cv, &lock);
  pthread_mutex_unlock(&lock);
  sink++;
}
E2E_FN void poller(void) {
  struct epoll_event e;
  int ep = epoll_create1(0);
  epoll_wait(ep, &e, 1, 80);
  close(ep);
  sink++;
}
E2E_FN void reader(void) {
  char c;
  while (read(pipefd[0], &c, 1) < 0) {
  }
  sink++;
}

static void* run_sleeper(void* a) {
  sleeper();
  return a;
}
static void* run_waiter(void* a) {
  waiter();
  return a;
}
static void* run_poller(void* a) {
  poller();
  return a;
}
static void* run_reader(void* a) {
  reader();
  return a;
}

int main(void) {
  if (pipe(pipefd) != 0) return 1;
  void* (*routines[4])(void*) = {run_sleeper, run_waiter, run_poller, run_reader};
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) pthread_create(&t[i], NULL, routines[i], NULL);
  struct timespec ms100 = {0, 100000000}, ms20 = {0, 20000000};
  nanosleep(&ms100, NULL);
  pthread_mutex_lock(&lock);
  go = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&lock);
  nanosleep(&ms20, NULL);
  if (write(pipefd[1], "x", 1) != 1) return 1;
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  return 0;
}

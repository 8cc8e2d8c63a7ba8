/* A program built to be attached (-fpatchable-function-entry) that may cancel a thread:
 * exact mode refuses to attach to it (a cancellation unwinds with libc's own unwinder,
 * which the runtime cannot see). It prints "ready", then runs until SIGUSR1 and prints
 * "checked 1 threads: ok". */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "truth.h"

static volatile sig_atomic_t g_stop;
static void on_usr1(int sig) {
  (void)sig;
  g_stop = 1;
}

E2E_FN static void* sleeper(void* p) {
  pause();
  return p;
}

int main(int argc, char** argv) {
  (void)argv;
  signal(SIGUSR1, on_usr1);
  if (argc > 5) {  // never: the call makes the program import pthread_cancel
    pthread_t t;
    pthread_create(&t, NULL, sleeper, NULL);
    pthread_cancel(t);
  }
  printf("ready\n");
  fflush(stdout);
  while (!g_stop) usleep(1000);
  printf("checked 1 threads: ok\n");
  return 0;
}

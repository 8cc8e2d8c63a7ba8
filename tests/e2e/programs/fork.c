/* fork: each process does its own calls, by construction. argv[1] picks the variant:
 *   "exit":   parent: main -> before_fork x5, fork, main -> parent_work x3, wait.
 *             child:  main -> child_work x7, then exit(0).
 *   "_exit":  the same, but the child leaves with _exit(0) (no atexit, no destructors).
 *   "nested": the child (child_work x7) itself forks a grandchild, which calls
 *             grandchild_work x2 and exits; the child waits for it, then exits.
 *   "after_thread": like "exit", but first a thread runs thread_work once and is joined
 *             (the child must not touch the finished thread's data: it once crashed).
 * Truth: two processes (three when nested), each with its parent's pid as ppid; each
 * process's thread has main once and only its own calls: the parent before_fork 5 and
 * parent_work 3; the child child_work 7 and no before_fork (those calls were the
 * parent's); the grandchild grandchild_work 2 and no child_work. Output: nothing;
 * exit status 0 if every child exited with 0. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

static volatile int sink;

E2E_FN void before_fork(void) { sink++; }
E2E_FN void parent_work(void) { sink++; }
E2E_FN void child_work(void) { sink++; }
E2E_FN void grandchild_work(void) { sink++; }
E2E_FN void thread_work(void) { sink++; }

static void* thread_main(void* arg) {
  thread_work();
  return arg;
}

static int wait_ok(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char** argv) {
  const char* variant = argc > 1 ? argv[1] : "exit";
  if (strcmp(variant, "after_thread") == 0) {
    pthread_t t;
    if (pthread_create(&t, 0, thread_main, 0) != 0 || pthread_join(t, 0) != 0) return 2;
  }
  for (int i = 0; i < 5; ++i) before_fork();
  pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    for (int i = 0; i < 7; ++i) child_work();
    if (strcmp(variant, "_exit") == 0) _exit(0);
    if (strcmp(variant, "nested") == 0) {
      pid_t grandchild = fork();
      if (grandchild == 0) {
        for (int i = 0; i < 2; ++i) grandchild_work();
        exit(0);
      }
      exit(grandchild > 0 && wait_ok(grandchild) ? 0 : 1);
    }
    exit(0);
  }
  for (int i = 0; i < 3; ++i) parent_work();
  return wait_ok(pid) ? 0 : 1;
}

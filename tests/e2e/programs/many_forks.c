/* many_forks N: forks N children one after another; each calls child_work once (which calls
 * strlen, a library call) and exits; the parent waits for each. Truth: N + 1 processes,
 * child_work called once in each child. Exit status 0 if every child exited with 0. For the
 * cost of a recording per forked process (the children share the parent's image). A child
 * that has not ended 10 s after its fork is killed, and the parent says so and exits with 2
 * (the runtime's fork handlers must never hang a child). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

static volatile size_t sink;

E2E_FN void child_work(const char* text) { sink += strlen(text); }

/* waitpid with a deadline: the child's status, or -1 once it was killed for hanging. */
static int wait_for(pid_t pid, int* status) {
  for (int waited_ms = 0; waited_ms < 10000; ++waited_ms) {
    const pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return 0;
    if (r < 0) return -1;
    usleep(1000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return -1;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 10;
  int ok = 1;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      child_work(argv[0]);
      exit(0);
    }
    if (pid < 0) return 1;
    int status = 0;
    if (wait_for(pid, &status) != 0) {
      fprintf(stderr, "many_forks: child %d of %d hung\n", i + 1, n);
      return 2;
    }
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok ? 0 : 1;
}

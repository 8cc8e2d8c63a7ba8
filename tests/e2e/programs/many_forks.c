/* many_forks N: forks N children one after another; each calls child_work once (which calls
 * strlen, a library call) and exits; the parent waits for each. Truth: N + 1 processes,
 * child_work called once in each child. Exit status 0 if every child exited with 0. For the
 * cost of a recording per forked process (the children share the parent's image). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

static volatile size_t sink;

E2E_FN void child_work(const char* text) { sink += strlen(text); }

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 10;
  int ok = 1;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      child_work(argv[0]);
      exit(0);
    }
    int status = 0;
    ok = ok && pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok ? 0 : 1;
}

/* vfork: a vfork child shares its parent's memory and runs no fork handlers, so it must
 * not write (or mark as written) the parent's data when it calls exec or _exit.
 * main -> work x2 around a vfork; the child execs /bin/true (argument "exec") or calls
 * _exit (argument "exit") without calling an instrumented function.
 * Truth: one process in the profile, main 1 call, work 2 calls. Output: "done". */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

static volatile int sink;

E2E_FN void work(void) { sink++; }

int main(int argc, char** argv) {
  const int use_exec = argc > 1 && strcmp(argv[1], "exec") == 0;
  work();
  pid_t child = vfork();
  if (child == 0) {
    if (use_exec) execl("/bin/true", "true", (char*)NULL);
    _exit(0);
  }
  waitpid(child, NULL, 0);
  work();
  printf("done\n");
  return 0;
}

/* own_env_children: main calls parent_work() once, then starts itself twice as "child" with
 * an environment of its own that lacks LD_PRELOAD and callprof's variables: once with
 * posix_spawn (envp {"OWN=1"}), once with fork + execve (an empty envp), waiting for each.
 * A child calls child_work() 3 times. Truth: 3 processes, parent_work 1, child_work 6.
 * Exit status 0 when both children exited with 0. */
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

E2E_FN void parent_work(void) { __asm__ volatile(""); }
E2E_FN void child_work(void) { __asm__ volatile(""); }

static int waited(pid_t pid) {
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    for (int i = 0; i < 3; ++i) child_work();
    return 0;
  }
  parent_work();
  char* child_argv[] = {argv[0], "child", 0};
  char* own_env[] = {"OWN=1", 0};
  char* no_env[] = {0};
  pid_t spawned = 0;
  int ok = posix_spawn(&spawned, argv[0], 0, 0, child_argv, own_env) == 0 && waited(spawned);
  pid_t forked = fork();
  if (forked == 0) {
    execve(argv[0], child_argv, no_env);
    _exit(127);
  }
  ok = ok && waited(forked);
  return ok ? 0 : 1;
}

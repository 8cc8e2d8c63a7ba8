// cputime: run a command, then print the CPU time it used (user + system, microsecond
// resolution, of the command and every descendant it waited for, as getrusage(RUSAGE_CHILDREN)
// counts them), its wall time and its peak RSS. Used by bench/realprograms/run.sh, where GNU
// time's 10 ms resolution is too coarse for a 50 ms plain zstd run.
//
//   cputime OUT_FILE COMMAND [ARGS...]
//
// OUT_FILE gets one line "cpu_s user_s sys_s wall_s maxrss_kb". The command's stdin, stdout
// and stderr are its own. Exit status: the command's (128 + signal when it was killed; 127
// when it could not be started).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cputime OUT_FILE COMMAND [ARGS...]\n");
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid < 0) {
    perror("cputime: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    fprintf(stderr, "cputime: cannot run %s: %s\n", argv[2], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      perror("cputime: waitpid");
      return 2;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  double user = seconds(ru.ru_utime), sys = seconds(ru.ru_stime);
  double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  FILE* out = fopen(argv[1], "w");
  if (!out) {
    perror("cputime: output file");
    return 2;
  }
  fprintf(out, "%.6f %.6f %.6f %.6f %ld\n", user + sys, user, sys, wall, ru.ru_maxrss);
  fclose(out);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

/* System calls with known counts, callers and durations (issue 5):
 *   f1: exactly 3000 write(2) of 8 bytes to /dev/null;
 *   f2: exactly 1000 writes to /dev/null and 500 read(2) of 8 bytes from /dev/zero;
 *   bad_writes: 100 writes to a closed descriptor: 100 errors, all EBADF;
 *   pipe_wait: one read from a pipe whose writer (another thread) writes after 100 ms;
 *   late_writer: that one write;
 *   varying_writes: 2000 writes of a line formatted on its own stack, so the stack bytes
 *             differ at every call (one path all the same): 6101 writes in all;
 *   deep_a > deep_b > deep_c > deep_d: one write under four frames of ~300 bytes each
 *             (6102 writes in all), deeper than the default 256-byte stack window;
 *   child_writes (in a forked child, `syscalls fork`): 200 writes, then _exit.
 * Everything goes through libc's wrappers, as in real programs. Output: nothing. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

static const char kBytes[8] = "payload";

E2E_FN void f1(int fd) {
  for (int i = 0; i < 3000; ++i)
    if (write(fd, kBytes, sizeof kBytes) != sizeof kBytes) _exit(3);
}

E2E_FN void f2(int out, int in) {
  char buf[8];
  for (int i = 0; i < 1000; ++i)
    if (write(out, kBytes, sizeof kBytes) != sizeof kBytes) _exit(3);
  for (int i = 0; i < 500; ++i)
    if (read(in, buf, sizeof buf) != sizeof buf) _exit(3);
}

E2E_FN void bad_writes(int closed_fd) {
  for (int i = 0; i < 100; ++i)
    if (write(closed_fd, kBytes, sizeof kBytes) != -1) _exit(3);
}

static void* late_writer(void* arg) {
  struct timespec t = {0, 100000000};
  while (nanosleep(&t, &t) != 0) {
  }
  if (write(*(int*)arg, "x", 1) != 1) _exit(3);
  return 0;
}

E2E_FN void pipe_wait(void) {
  int p[2];
  if (pipe(p) != 0) _exit(3);
  pthread_t writer;
  pthread_create(&writer, 0, late_writer, &p[1]);
  char c;
  if (read(p[0], &c, 1) != 1) _exit(3);
  pthread_join(writer, 0);
  close(p[0]);
  close(p[1]);
}

E2E_FN void varying_writes(int fd) {
  for (int i = 0; i < 2000; ++i) {
    char line[48];
    int n = snprintf(line, sizeof line, "line %d of %d\n", i, 2000);
    if (write(fd, line, (size_t)n) != n) _exit(3);
  }
}

/* Each frame holds a buffer the compiler cannot drop, and calls on after using it. */
#define DEEP(name, next)                                  \
  E2E_FN void name(int fd) {                              \
    volatile char pad[300];                               \
    for (int i = 0; i < (int)sizeof pad; ++i) pad[i] = 1; \
    next;                                                 \
    pad[0]++;                                             \
  }
DEEP(deep_d, if (write(fd, kBytes, sizeof kBytes) != sizeof kBytes) _exit(3))
DEEP(deep_c, deep_d(fd))
DEEP(deep_b, deep_c(fd))
DEEP(deep_a, deep_b(fd))

E2E_FN void child_writes(int fd) {
  for (int i = 0; i < 200; ++i)
    if (write(fd, kBytes, sizeof kBytes) != sizeof kBytes) _exit(3);
}

int main(int argc, char** argv) {
  int null_fd = open("/dev/null", O_WRONLY);
  int zero_fd = open("/dev/zero", O_RDONLY);
  int closed_fd = open("/dev/null", O_WRONLY);
  close(closed_fd);
  f1(null_fd);
  f2(null_fd, zero_fd);
  bad_writes(closed_fd);
  pipe_wait();
  varying_writes(null_fd);
  deep_a(null_fd);
  if (argc > 1 && strcmp(argv[1], "fork") == 0) {
    pid_t child = fork();
    if (child == 0) {
      child_writes(null_fd);
      _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 1;
  }
  return 0;
}

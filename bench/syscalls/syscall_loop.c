/* System-call benchmark program (bench/syscalls/run.sh): `syscall_loop N [kind]` makes N
 * calls of a cheap system call in a loop and prints the loop's own time ("elapsed_ns=",
 * CLOCK_MONOTONIC), so the tracers' start-up and writing are left out.
 *   write    (default) write(2) of 8 bytes to /dev/null, through libc's write
 *   getppid  getppid(2) through syscall(SYS_getppid)
 *   mixed    getppid, except every 1000th call, which is a write
 * Prints "calls=N writes=W kind=K elapsed_ns=T" through stdio: with stdout a pipe or file,
 * that is one more write(2) at exit, outside the loop. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char buf[8] = "1234567";

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  const char* kind = argc > 2 ? argv[2] : "write";
  int mode = strcmp(kind, "write") == 0 ? 0 : strcmp(kind, "getppid") == 0 ? 1 : strcmp(kind, "mixed") == 0 ? 2 : -1;
  if (mode < 0) {
    fprintf(stderr, "syscall_loop: unknown kind %s (write, getppid, mixed)\n", kind);
    return 2;
  }
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) {
    perror("syscall_loop: /dev/null");
    return 2;
  }
  long writes = 0, bad = 0;
  uint64_t start = now_ns();
  for (long i = 0; i < n; ++i) {
    if (mode == 0 || (mode == 2 && i % 1000 == 999)) {
      bad += write(fd, buf, sizeof buf) != (ssize_t)sizeof buf;
      ++writes;
    } else {
      bad += syscall(SYS_getppid) <= 0;
    }
  }
  uint64_t elapsed = now_ns() - start;
  close(fd);
  if (bad) {
    fprintf(stderr, "syscall_loop: %ld calls failed\n", bad);
    return 1;
  }
  printf("calls=%ld writes=%ld kind=%s elapsed_ns=%llu\n", n, writes, kind, (unsigned long long)elapsed);
  return 0;
}

/* System calls whose callers only exact mode's shadow stack can tell (issue 15.1): built
 * like Debian's packages (-O2, no frame pointers), and each call made from an
 * uninstrumented helper whose 4 KiB stack buffer puts its caller's return address far
 * beyond any stack window the probe copies.
 *   big_frame_reads:  300 read(2) of 1 byte from /dev/zero, through the helper;
 *   sid_twice:       2 getsid(2), through the helper;
 *   worker (thread):  200 getsid through the helper, under worker_loop;
 *   child_calls (in a forked child): 50 getsid through the helper, then _exit;
 *   main:             1 getsid of its own (directly, no helper).
 * So: read 300 (+ whatever the loader reads before main), getsid 2 + 200 + 50 + 1. */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

/* Not instrumented, never inlined: a frame the probe's window cannot see past. */
__attribute__((noinline, no_instrument_function)) static long through_big_frame(long nr, int fd) {
  volatile char pad[4096];
  for (unsigned i = 0; i < sizeof pad; i += 64) pad[i] = (char)i;
  char byte;
  long r = nr == SYS_read ? read(fd, &byte, 1) : syscall(nr, fd);
  pad[0]++;
  return r;
}

E2E_FN void big_frame_reads(int fd) {
  for (int i = 0; i < 300; ++i)
    if (through_big_frame(SYS_read, fd) != 1) _exit(3);
}

E2E_FN void sid_twice(void) {
  through_big_frame(SYS_getsid, 0);
  through_big_frame(SYS_getsid, 0);
}

E2E_FN void worker_loop(void) {
  for (int i = 0; i < 200; ++i) through_big_frame(SYS_getsid, 0);
}

static void* worker(void* arg) {
  (void)arg;
  worker_loop();
  return 0;
}

E2E_FN void child_calls(void) {
  for (int i = 0; i < 50; ++i) through_big_frame(SYS_getsid, 0);
}

int main(void) {
  int fd = open("/dev/zero", O_RDONLY);
  if (fd < 0) return 2;
  big_frame_reads(fd);
  sid_twice();
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  pid_t child = fork();
  if (child == 0) {
    child_calls();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  syscall(SYS_getsid, 0);
  close(fd);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 4;
}

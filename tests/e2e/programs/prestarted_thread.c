/* A thread that exists before any constructor runs (issue 28, patched entries at start-up):
 * the executable's .preinit_array starts it with a bare clone, so no pthread_create the
 * runtime could see. A program built with -fpatchable-function-entry cannot then have its
 * entries patched at start-up (only with every other thread stopped): the recording says why
 * in one line and the program runs as without callprof.
 * Truth: prints "1000000", exit status 0; work() is called 1000 times (none recorded). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static char stack[65536] __attribute__((aligned(16)));

static int idle(void* arg) {
  (void)arg;
  for (;;) syscall(SYS_pause); /* ends with the process's exit_group */
  return 0;
}

static void start_thread(void) {
  const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
  if (clone(idle, stack + sizeof stack, flags, 0) < 0) perror("clone");
}
__attribute__((section(".preinit_array"), used)) static void (*const preinit)(void) = start_thread;

__attribute__((noinline)) int work(int x) { return x * 2 + 1; }

int main(void) {
  int sum = 0;
  for (int i = 0; i < 1000; ++i) sum += work(i);
  printf("%d\n", sum);
  return 0;
}

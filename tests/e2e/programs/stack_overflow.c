/* A crash by stack overflow, for the profile written on fatal signals and the alternate
 * signal stack that needs. `stack_overflow MODE`:
 *   "main"    main calls descend() until the stack runs out (SIGSEGV);
 *   "thread"  the same in a thread the program creates;
 *   "reused"  the same in a second thread, started after a first one ended (the runtime
 *             gives the second the first one's alternate stack);
 *   "own"     main first installs an alternate signal stack of its own (256 KiB) but no
 *             handler, then overflows;
 *   "small"   the same with an alternate stack of 8 KiB (the classic SIGSTKSZ), on which
 *             the profile must be written;
 *   "handler" main installs its own alternate stack (256 KiB) and a SIGSEGV handler
 *             (SA_ONSTACK) that says whether it runs on that stack, resets SIGSEGV to
 *             SIG_DFL and returns: the fault repeats and ends the program.
 * Every mode first says what sigaltstack reports (and "own", "small" and "handler" again after
 * installing theirs). Lines go out with write(): stdio buffers are lost in a crash.
 * Truth: the same output as without callprof; death by SIGSEGV; main 1 call; descend
 * called thousands of times (each call holds 512 bytes of stack), all open at the end. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

#define OWN_STACK_BYTES (256 * 1024)

static char own_stack[OWN_STACK_BYTES];
static volatile int bottom = -1; /* never reached: the stack runs out first */

E2E_QUIET void say(const char* line) {
  ssize_t n = write(1, line, strlen(line));
  (void)n;
}

E2E_QUIET void report_altstack(void) {
  stack_t now;
  if (sigaltstack(NULL, &now) != 0)
    say("altstack query failed\n");
  else if (now.ss_flags & SS_DISABLE)
    say("altstack disabled\n");
  else if (now.ss_sp == own_stack)
    say("altstack own\n");
  else
    say("altstack foreign\n");
}

E2E_FN int descend(int n) {
  char frame[512];
  frame[0] = (char)n;
  asm volatile("" : : "r"(frame) : "memory"); /* the whole frame exists */
  if (n == bottom) return 0;
  return descend(n + 1) + frame[0];
}

E2E_FN void on_segv(int sig) {
  char here;
  uintptr_t at = (uintptr_t)&here, lo = (uintptr_t)own_stack;
  say(at >= lo && at < lo + sizeof own_stack ? "handler on own stack\n" : "handler on another stack\n");
  signal(sig, SIG_DFL);
}

E2E_QUIET void install_own_stack(size_t bytes) {
  stack_t mine = {.ss_sp = own_stack, .ss_size = bytes, .ss_flags = 0};
  if (sigaltstack(&mine, NULL) != 0) say("altstack install failed\n");
  report_altstack();
}

E2E_FN void* overflow_thread(void* arg) {
  report_altstack();
  descend(0);
  return arg;
}

E2E_FN void* short_thread(void* arg) {
  report_altstack();
  return arg;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "main";
  report_altstack();
  if (strcmp(mode, "thread") == 0 || strcmp(mode, "reused") == 0) {
    pthread_t t;
    if (strcmp(mode, "reused") == 0) {
      pthread_create(&t, NULL, short_thread, NULL);
      pthread_join(t, NULL);
    }
    pthread_create(&t, NULL, overflow_thread, NULL);
    pthread_join(t, NULL);
    return 0;
  }
  if (strcmp(mode, "own") == 0 || strcmp(mode, "handler") == 0) install_own_stack(sizeof own_stack);
  if (strcmp(mode, "small") == 0) install_own_stack(8192);
  if (strcmp(mode, "handler") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
  }
  return descend(0);
}

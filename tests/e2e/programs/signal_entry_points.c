/* What a strict ISO C program sees of signal dispositions it never set, through every way
 * glibc offers to look: built with -std=c11, signal() is glibc's __sysv_signal; then
 * ssignal, sigset, __sigaction, and the raw rt_sigaction system call (which no library
 * can interpose). SIGUSR1's handler chains to "the previous one", System V style: it
 * re-installs itself and calls the previous handler unless that is SIG_DFL or SIG_IGN (it
 * counts those). A disposition the program changed through sigignore must read back as
 * it set it.
 * Truth: the same lines as without callprof; in particular every query reads SIG_DFL,
 * "usr1 handled 2 chained to default 2", "bus after sigignore SIG_IGN"; exit status 0;
 * on_usr1 2 calls. */
#define _XOPEN_SOURCE 700
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "truth.h"

/* sigset is obsolete, and that is the point: programs still call it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

typedef void (*handler_t)(int);
/* Declared by glibc only with _DEFAULT_SOURCE, which -std=c11 leaves out. */
extern handler_t ssignal(int sig, handler_t handler);
extern int __sigaction(int sig, const struct sigaction* act, struct sigaction* old);
extern long syscall(long number, ...);

/* The kernel's struct sigaction (x86-64), as rt_sigaction reads and writes it. */
struct kernel_sigaction {
  handler_t handler;
  unsigned long flags;
  void (*restorer)(void);
  unsigned long mask;
};

static handler_t previous;
static volatile sig_atomic_t handled, chained_to_default;

E2E_FN void on_usr1(int sig) {
  ++handled;
  signal(SIGUSR1, on_usr1); /* System V: the disposition was reset on delivery */
  if (previous == SIG_DFL || previous == SIG_IGN)
    ++chained_to_default;
  else
    previous(sig);
}

static void on_other(int sig) { (void)sig; }

static const char* show(handler_t h) {
  if (h == SIG_DFL) return "SIG_DFL";
  if (h == SIG_IGN) return "SIG_IGN";
  if (h == SIG_ERR) return "SIG_ERR";
  if (h == SIG_HOLD) return "SIG_HOLD";
  return h == on_usr1 ? "on_usr1" : h == on_other ? "on_other" : "foreign";
}

static handler_t raw_query(int sig) {
  struct kernel_sigaction k;
  memset(&k, 0, sizeof k);
  if (syscall(SYS_rt_sigaction, sig, NULL, &k, 8) != 0) return SIG_ERR;
  return k.handler;
}

int main(void) {
  static const int raw[] = {SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGPROF, SIGVTALRM, SIGCHLD};
  for (unsigned i = 0; i < sizeof raw / sizeof *raw; ++i) printf("raw %d %s\n", raw[i], show(raw_query(raw[i])));

  printf("ssignal SIGABRT was %s\n", show(ssignal(SIGABRT, on_other)));
  printf("ssignal SIGABRT was %s\n", show(ssignal(SIGABRT, SIG_DFL)));
  printf("sigset SIGTERM was %s\n", show(sigset(SIGTERM, on_other)));
  printf("sigset SIGTERM was %s\n", show(sigset(SIGTERM, SIG_DFL)));
  struct sigaction now;
  __sigaction(SIGSEGV, NULL, &now);
  printf("__sigaction SIGSEGV %s\n", show(now.sa_handler));
  sigignore(SIGBUS);
  sigaction(SIGBUS, NULL, &now);
  printf("bus after sigignore %s\n", show(now.sa_handler));

  previous = signal(SIGUSR1, on_usr1);
  printf("signal SIGUSR1 was %s\n", show(previous));
  raise(SIGUSR1);
  raise(SIGUSR1);
  printf("usr1 handled %d chained to default %d\n", (int)handled, (int)chained_to_default);
  printf("usr1 now %s\n", show(signal(SIGUSR1, SIG_DFL)));
  return 0;
}

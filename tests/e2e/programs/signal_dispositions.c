// What the program sees of signal dispositions it never set: the default, whatever the
// profiler installed. SIGUSR1's handler chains to "the previous one" as libraries do; with
// the previous being SIG_DFL it counts instead of calling it. Prints one line per check.
#include <signal.h>
#include <stdio.h>
#include <string.h>

static struct sigaction previous;
static volatile sig_atomic_t handled, chained_to_default;

static void on_usr1(int sig) {
  ++handled;
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN)
    ++chained_to_default;
  else if (!(previous.sa_flags & SA_SIGINFO))
    previous.sa_handler(sig);
}

static void on_term(int sig) { (void)sig; }

static const char* show(void (*h)(int)) {
  if (h == SIG_DFL) return "SIG_DFL";
  if (h == SIG_IGN) return "SIG_IGN";
  if (h == SIG_ERR) return "SIG_ERR";
  return h == on_term ? "on_term" : h == on_usr1 ? "on_usr1" : "foreign";
}

int main(void) {
  static const int queried[] = {SIGSEGV, SIGABRT, SIGTERM, SIGINT, SIGUSR1, SIGALRM, SIGPIPE};
  for (unsigned i = 0; i < sizeof queried / sizeof *queried; ++i) {
    struct sigaction now;
    sigaction(queried[i], NULL, &now);
    printf("query %d %s\n", queried[i], show(now.sa_handler));
  }
  printf("signal SIGTERM was %s\n", show(signal(SIGTERM, on_term)));
  printf("signal SIGTERM was %s\n", show(signal(SIGTERM, SIG_DFL)));

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, &previous);
  raise(SIGUSR1);
  raise(SIGUSR1);
  printf("usr1 handled %d chained to default %d\n", (int)handled, (int)chained_to_default);
  struct sigaction now;
  sigaction(SIGUSR1, NULL, &now);
  printf("usr1 now %s\n", show(now.sa_handler));
  return 0;
}

/* A C++ program to attach exact mode to (issue 31, programs built to be attached): THREADS
 * threads (argv[1], default 1) each loop calling play_round(), which calls dive(DEPTH) inside a
 * try block; dive recurses DEPTH (4) levels, each holding a Guard whose destructor runs
 * during the unwinding (a cleanup landing pad: _Unwind_Resume), and the innermost throws.
 * Every other round the catch rethrows to an outer catch (__cxa_rethrow). Each thread
 * counts its own calls, throws and catches; SIGUSR1 asks them to stop between rounds,
 * each checks that every throw was caught once and every Guard destroyed, and main prints
 * "checked N threads: ok" and exits 0 (3 on a mismatch). It prints "ready" once every
 * thread runs.
 * Truth in any attached window: calls of dive = DEPTH + 1 per round, within the calls open
 * at the window's edges; a thread unwound by an exception through patched frames goes on
 * exactly as without callprof. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <stdexcept>

#include "truth.h"

static volatile sig_atomic_t g_stop;
static int g_failed;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static thread_local unsigned long t_guards, t_destroyed, t_throws, t_caught, t_rounds;
constexpr int kDepth = 4;

struct Guard {
  Guard() { ++t_guards; }
  ~Guard() { ++t_destroyed; }
};

E2E_FN void dive(int level) {
  Guard g;
  if (level == 0) {
    ++t_throws;
    throw std::runtime_error("deep");
  }
  dive(level - 1);
}

E2E_FN void inner_round(bool rethrow) {
  try {
    dive(kDepth);
  } catch (const std::runtime_error&) {
    if (rethrow) throw;
    ++t_caught;
  }
}

E2E_FN void play_round(unsigned long n) {
  try {
    inner_round(n % 2 == 1);
  } catch (const std::exception&) {
    ++t_caught;
  }
  ++t_rounds;
}

static void* worker(void*) {
  for (unsigned long n = 0; !g_stop; ++n) play_round(n);
  const bool ok =
      t_throws == t_rounds && t_caught == t_rounds && t_guards == t_destroyed && t_guards == t_rounds * (kDepth + 1);
  if (!ok) {
    pthread_mutex_lock(&g_lock);
    fprintf(stderr, "rounds %lu throws %lu caught %lu guards %lu destroyed %lu\n", t_rounds, t_throws, t_caught,
            t_guards, t_destroyed);
    g_failed = 1;
    pthread_mutex_unlock(&g_lock);
  }
  return nullptr;
}

static void on_usr1(int) { g_stop = 1; }

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 1;
  signal(SIGUSR1, on_usr1);
  pthread_t t[64];
  for (int i = 1; i < threads && i < 64; ++i) pthread_create(&t[i], nullptr, worker, nullptr);
  printf("ready\n");
  fflush(stdout);
  worker(nullptr);
  for (int i = 1; i < threads && i < 64; ++i) pthread_join(t[i], nullptr);
  printf(g_failed ? "checked %d threads: FAILED\n" : "checked %d threads: ok\n", threads);
  return g_failed ? 3 : 0;
}

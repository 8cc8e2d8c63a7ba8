#include "snapshots.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "process.h"
#include "raw_syscall.h"
#include "runtime_thread.h"
#include "signal_intercept.h"
#include "symbol_presence.h"
#include "syscall_context.h"

namespace callprof::rt {
namespace {

sem_t g_requests;
uint32_t g_seq = 0;
uint32_t g_thread_id = 0;
sem_t g_thread_known;  // posted once the thread has published its id
int g_dump_lock = 0;
bool g_started = false;
// The signals on which the data is written before the process dies: those whose default
// action is a core dump (crashes: faults, abort, traps, resource limits, SIGQUIT) and the
// two by which a user ends a program (Ctrl-C, kill). No others: a handler shows to the
// raw rt_sigaction system call and in /proc/PID/status, and signals such as SIGUSR1,
// SIGALRM or SIGPIPE are the program's own business.
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGABRT, SIGTRAP,
                                 SIGSYS,  SIGQUIT, SIGXCPU, SIGXFSZ, SIGINT,  SIGTERM};

void on_snapshot_signal(int) {
  int saved = errno;
  sem_post(&g_requests);  // async-signal-safe; the runtime thread does the work
  errno = saved;
}

void on_fatal_signal(int sig) {
  // SA_RESETHAND restored the default action: write, then let the signal do what it does.
  write_dump(sig);
  sys::call(SYS_tgkill, sys::getpid(), sys::gettid(), sig);  // raise(), without libc
}

void* snapshot_thread(void*) {
  mute_syscall_context();                                           // its system calls are ours, not the program's
  __atomic_store_n(&g_thread_id, sys::gettid(), __ATOMIC_RELAXED);  // the recorder leaves it out
  sem_post(&g_thread_known);
  const uint32_t interval = process().config.snapshot_interval_ms;
  for (;;) {
    if (interval == 0) {
      while (sem_wait(&g_requests) != 0 && errno == EINTR) {
      }
    } else {
      timespec until;
      clock_gettime(CLOCK_MONOTONIC, &until);
      until.tv_sec += interval / 1000;
      until.tv_nsec += long(interval % 1000) * 1000000;
      if (until.tv_nsec >= 1000000000) until.tv_sec += 1, until.tv_nsec -= 1000000000;
      while (sem_clockwait(&g_requests, CLOCK_MONOTONIC, &until) != 0 && errno == EINTR) {
      }
    }
    write_snapshot(__atomic_add_fetch(&g_seq, 1, __ATOMIC_RELAXED));
  }
  return nullptr;
}

void start_thread() {
  sem_init(&g_thread_known, 0, 0);
  if (!start_runtime_thread(snapshot_thread, "callprof-snap", 256 * 1024)) return;
  // Its id must be in every dump, even one written before it first ran (a short program).
  timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 1;
  while (sem_timedwait(&g_thread_known, &until) != 0 && errno == EINTR) {
  }
}

// Only where the disposition is still the default (an inherited SIG_IGN stays); a
// program that sets SIG_DFL later gets ours back (signal_intercept.h).
void install_fatal_handlers() {
  for (int sig : kFatalSignals) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    // On the alternate stack (alt_stack.h): a stack overflow leaves no room on the thread's own.
    sa.sa_flags = SA_RESETHAND | SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    install_runtime_handler(sig, sa, true, true);
  }
}

}  // namespace

bool lock_dumps(bool may_give_up) {
  // A fatal signal may arrive in the thread that holds the lock: give up rather than hang.
  for (int spins = 0; __atomic_exchange_n(&g_dump_lock, 1, __ATOMIC_ACQUIRE); ++spins) {
    if (may_give_up && spins > 20000) return false;
    sys::call(SYS_sched_yield);
  }
  return true;
}
void unlock_dumps() { __atomic_store_n(&g_dump_lock, 0, __ATOMIC_RELEASE); }

void start_snapshots(const RuntimeConfig& c) {
  install_fatal_handlers();
  if (c.snapshot_signal == 0 && c.snapshot_interval_ms == 0) return;
  sem_init(&g_requests, 0, 0);
  if (c.snapshot_signal != 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_snapshot_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    install_runtime_handler(c.snapshot_signal, sa, false, false);
  }
  g_started = true;
  start_thread();
}

void restart_snapshots_after_fork() {
  g_dump_lock = 0;
  g_seq = 0;
  g_thread_id = 0;  // the parent's thread is not ours
  if (!g_started) return;
  sem_init(&g_requests, 0, 0);
  start_thread();  // threads do not survive fork
}

uint32_t snapshot_thread_id() { return __atomic_load_n(&g_thread_id, __ATOMIC_RELAXED); }

void checkpoint_reached(uint64_t) { write_snapshot(__atomic_add_fetch(&g_seq, 1, __ATOMIC_RELAXED)); }

}  // namespace callprof::rt

// Interposed sigaction, signal, bsd_signal and sysv_signal (LD_PRELOAD). glibc's signal()
// calls its internal sigaction, so each entry point is interposed on its own.
#include "signal_intercept.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace callprof::rt {
namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

SigactionFn g_real_sigaction = nullptr;
// Signals whose current disposition is the runtime's handler. Read and written from any
// thread, and from signal handlers: plain atomics, no lock.
bool g_runtime_owns[_NSIG] = {};

// Resolved at load time, as the program may call sigaction from a signal handler, where
// dlsym must not run; the lazy path only serves calls made before our constructor.
__attribute__((constructor)) void resolve_sigaction() {
  g_real_sigaction = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
}

SigactionFn real() {
  if (!g_real_sigaction) resolve_sigaction();
  return g_real_sigaction;
}

bool valid(int sig) { return sig > 0 && sig < _NSIG; }

// What the program is shown in place of the runtime's handler.
void default_action(struct sigaction* out) {
  memset(out, 0, sizeof *out);
  out->sa_handler = SIG_DFL;
  sigemptyset(&out->sa_mask);
}

// sigaction as the program sees it.
int program_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  SigactionFn f = real();
  if (!f) {
    errno = ENOSYS;
    return -1;
  }
  struct sigaction before;
  const int rc = f(sig, act, &before);
  if (rc != 0) return rc;
  const bool ours = valid(sig) && __atomic_load_n(&g_runtime_owns[sig], __ATOMIC_ACQUIRE);
  if (old) {
    if (ours) default_action(old);
    else *old = before;
  }
  if (act && ours) __atomic_store_n(&g_runtime_owns[sig], false, __ATOMIC_RELEASE);
  return 0;
}

// signal() and its variants: install `handler` with `flags`, return the previous handler.
sighandler_t program_signal(int sig, sighandler_t handler, int flags, bool block_self) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = flags;
  sigemptyset(&act.sa_mask);
  if (block_self && valid(sig)) sigaddset(&act.sa_mask, sig);
  if (program_sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

}  // namespace

int real_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  SigactionFn f = real();
  return f ? f(sig, act, old) : -1;
}

int install_runtime_handler(int sig, const struct sigaction& act) {
  const int rc = real_sigaction(sig, &act, nullptr);
  if (rc == 0 && valid(sig)) __atomic_store_n(&g_runtime_owns[sig], true, __ATOMIC_RELEASE);
  return rc;
}

}  // namespace callprof::rt

using namespace callprof::rt;

CALLPROF_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  return program_sigaction(sig, act, old);
}

// glibc's signal() has BSD semantics: restart, the signal blocked in its handler.
CALLPROF_EXPORT sighandler_t signal(int sig, sighandler_t handler) noexcept {
  return program_signal(sig, handler, SA_RESTART, true);
}

CALLPROF_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler) noexcept {
  return program_signal(sig, handler, SA_RESTART, true);
}

// System V semantics: one-shot, not blocked in its handler.
CALLPROF_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler) noexcept {
  return program_signal(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

// Interposed sigaction, __sigaction, signal, bsd_signal, ssignal, sysv_signal,
// __sysv_signal and sigset (LD_PRELOAD). glibc's own functions call its internal
// sigaction, so each entry point that reports a previous disposition is interposed on its
// own (a strict ISO C program's signal() is __sysv_signal). What no library can see: the
// raw rt_sigaction system call, and /proc/PID/status; there the runtime's handlers show,
// which is why it installs them only for the crash-saving signals and the snapshot signal.
#include "signal_intercept.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "symbol_presence.h"

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace callprof::rt {
namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

SigactionFn g_real_sigaction = nullptr;

// Per signal: the runtime's handler (null: none), and the action to install when the
// program sets SIG_DFL (its handler null: SIG_DFL stays SIG_DFL). Written at start-up;
// read from any thread and from signal handlers.
struct RuntimeDisposition {
  sighandler_t handler;
  struct sigaction for_default;
};
RuntimeDisposition g_runtime[_NSIG];

// Resolved at load time, as the program may call sigaction from a signal handler, where
// dlsym must not run; the lazy path only serves calls made before our constructor.
__attribute__((constructor)) void resolve_sigaction() {
  g_real_sigaction = reinterpret_cast<SigactionFn>(next_symbol("sigaction"));
}

SigactionFn real() {
  if (!g_real_sigaction) resolve_sigaction();
  return g_real_sigaction;
}

bool valid(int sig) { return sig > 0 && sig < _NSIG; }

bool is_runtime_handler(int sig, const struct sigaction& a) {
  if (!valid(sig)) return false;
  const sighandler_t ours = __atomic_load_n(&g_runtime[sig].handler, __ATOMIC_ACQUIRE);
  return ours != nullptr && a.sa_handler == ours;
}

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
  if (act && act->sa_handler == SIG_DFL && valid(sig) && __atomic_load_n(&g_runtime[sig].handler, __ATOMIC_ACQUIRE) &&
      g_runtime[sig].for_default.sa_handler != nullptr)
    act = &g_runtime[sig].for_default;  // crash-saving: our handler is the default
  struct sigaction before;
  const int rc = f(sig, act, &before);
  if (rc != 0) return rc;
  if (old) {
    if (is_runtime_handler(sig, before))
      default_action(old);
    else
      *old = before;
  }
  return 0;
}

// signal() and its variants: install `handler` with `flags`, return the previous handler.
sighandler_t program_signal(int sig, sighandler_t handler, int flags, bool block_self) {
  if (handler == SIG_ERR || !valid(sig)) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = flags;
  sigemptyset(&act.sa_mask);
  if (block_self) sigaddset(&act.sa_mask, sig);
  if (program_sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

// System V's sigset, as glibc implements it, over program_sigaction.
sighandler_t program_sigset(int sig, sighandler_t disp) {
  sigset_t set, was;
  sigemptyset(&set);
  if (!valid(sig) || sigaddset(&set, sig) != 0) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction act, old;
  if (disp == SIG_HOLD) {
    if (pthread_sigmask(SIG_BLOCK, &set, &was) != 0) return SIG_ERR;
    if (sigismember(&was, sig)) return SIG_HOLD;
    return program_sigaction(sig, nullptr, &old) == 0 ? old.sa_handler : SIG_ERR;
  }
  memset(&act, 0, sizeof act);
  act.sa_handler = disp;
  sigemptyset(&act.sa_mask);
  if (program_sigaction(sig, &act, &old) != 0 || pthread_sigmask(SIG_UNBLOCK, &set, &was) != 0) return SIG_ERR;
  return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
}

}  // namespace

int real_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  SigactionFn f = real();
  return f ? f(sig, act, old) : -1;
}

bool install_runtime_handler(int sig, const struct sigaction& act, bool only_over_default, bool stands_for_default) {
  if (!valid(sig)) return false;
  RuntimeDisposition& d = g_runtime[sig];
  if (stands_for_default)
    d.for_default = act;
  else
    memset(&d.for_default, 0, sizeof d.for_default);
  __atomic_store_n(&d.handler, act.sa_handler, __ATOMIC_RELEASE);
  struct sigaction now;
  if (only_over_default && (real_sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL)) return false;
  return real_sigaction(sig, &act, nullptr) == 0;
}

}  // namespace callprof::rt

using namespace callprof::rt;

CALLPROF_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  return program_sigaction(sig, act, old);
}

CALLPROF_EXPORT int __sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  return program_sigaction(sig, act, old);
}

// glibc's signal() has BSD semantics: restart, the signal blocked in its handler.
CALLPROF_EXPORT sighandler_t signal(int sig, sighandler_t handler) noexcept {
  return program_signal(sig, handler, SA_RESTART, true);
}

CALLPROF_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler) noexcept {
  return program_signal(sig, handler, SA_RESTART, true);
}

CALLPROF_EXPORT sighandler_t ssignal(int sig, sighandler_t handler) noexcept {
  return program_signal(sig, handler, SA_RESTART, true);
}

// System V semantics: one-shot, not blocked in its handler.
CALLPROF_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler) noexcept {
  return program_signal(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

CALLPROF_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler) noexcept {
  return program_signal(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

CALLPROF_EXPORT sighandler_t sigset(int sig, sighandler_t disp) noexcept { return program_sigset(sig, disp); }

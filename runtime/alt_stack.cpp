// Per-thread alternate signal stacks (see alt_stack.h) and the interposed sigaltstack.
// Everything here is a raw system call: sigaltstack may be called from signal handlers.
#include "alt_stack.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>

#include "raw_syscall.h"

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace callprof::rt {
namespace {

// Room for the dump writer (a few KiB) and for a program handler with SA_ONSTACK that
// finds ours where it installed none; only the pages touched are backed. Below it, a
// guard page: overflowing it faults instead of writing over other memory.
constexpr uint64_t kStackBytes = 256 * 1024;
constexpr uint64_t kGuardBytes = 4096;

// Stacks of threads that ended, for the threads to come: mapping one (a guard made with
// mprotect) and unmapping it cost each short thread about 10 us of the ~57 us the runtime
// added to it (bench/runtime/threads.sh). A slot is taken or filled by one atomic exchange or
// compare-exchange, so any thread, or a signal handler, may use it.
constexpr int kSpareStacks = 16;
char* g_spare[kSpareStacks] = {};

char* take_spare() {
  for (char*& slot : g_spare)
    if (__atomic_load_n(&slot, __ATOMIC_RELAXED))
      if (char* stack = __atomic_exchange_n(&slot, nullptr, __ATOMIC_ACQUIRE)) return stack;
  return nullptr;
}

bool keep_spare(char* stack) {
  for (char*& slot : g_spare) {
    char* empty = nullptr;
    if (__atomic_compare_exchange_n(&slot, &empty, stack, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) return true;
  }
  return false;
}

__thread char* t_stack __attribute__((tls_model("initial-exec"))) = nullptr;  // ours, once mapped
__thread bool t_wanted __attribute__((tls_model("initial-exec"))) = false;    // thread attached

bool is_ours(const stack_t& s) { return t_stack && !(s.ss_flags & SS_DISABLE) && s.ss_sp == t_stack; }

// Installs ours (mapping it on first use); false when that could not be done.
bool install_ours() {
  if (!t_stack) t_stack = take_spare();
  if (!t_stack) {
    char* m = static_cast<char*>(sys::mmap(nullptr, kGuardBytes + kStackBytes, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE));
    if (!m) return false;
    sys::mprotect(m, kGuardBytes, PROT_NONE);
    t_stack = m + kGuardBytes;
  }
  stack_t ours{t_stack, 0, kStackBytes};
  return sys::sigaltstack(&ours, nullptr) == 0;
}

int fail(long rc) {
  errno = int(-rc);
  return -1;
}

}  // namespace

void attach_alt_stack() {
  t_wanted = true;
  stack_t now;
  if (sys::sigaltstack(nullptr, &now) == 0 && (now.ss_flags & SS_DISABLE)) install_ours();
}

void detach_alt_stack() {
  t_wanted = false;
  if (!t_stack) return;
  stack_t now;
  if (sys::sigaltstack(nullptr, &now) != 0) return;
  if (is_ours(now)) {
    if (now.ss_flags & SS_ONSTACK) return;  // a handler runs on it: leave it be
    stack_t off{nullptr, SS_DISABLE, 0};
    sys::sigaltstack(&off, nullptr);
  }
  if (!keep_spare(t_stack)) sys::munmap(t_stack - kGuardBytes, kGuardBytes + kStackBytes);
  t_stack = nullptr;
}

}  // namespace callprof::rt

using namespace callprof::rt;

// The program's view: where ours is installed it has none. Disabling a stack it does not
// see changes nothing; disabling its own brings ours back.
CALLPROF_EXPORT int sigaltstack(const stack_t* ss, stack_t* old) noexcept {
  stack_t now;
  long rc = sys::sigaltstack(nullptr, &now);
  if (rc != 0) return fail(rc);
  const bool ours = is_ours(now);
  const bool disabling = ss && (ss->ss_flags & SS_DISABLE);
  if (ss && !(ours && disabling)) {
    rc = sys::sigaltstack(ss, nullptr);
    if (rc != 0) return fail(rc);
    if (disabling && t_wanted) install_ours();
  }
  if (old) *old = ours ? stack_t{nullptr, SS_DISABLE, 0} : now;
  return 0;
}

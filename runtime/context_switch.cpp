// makecontext/swapcontext/setcontext, interposed: the shadow stack follows the program's
// stack switches (coroutines). A context switched away from keeps its open frames in the
// thread's context store (context_store.h) under the ucontext_t it was saved in, and gets
// them back when the program switches into that ucontext_t again; a context made by
// makecontext starts with an empty stack, so its entry function is a root of the thread's
// tree (as a stack unwound inside the coroutine shows it). Time a context spends suspended
// is not its frames' own. docs/modes.md, "Coroutines", has the rules.
//
// The end of a coroutine (its entry function returns, and glibc's __start_context resumes
// uc_link without passing through setcontext's symbol) is seen by making the entry
// function return into callprof_context_end, which notes the switch and then jumps to
// __start_context as the return would have.
#include <stdarg.h>
#include <ucontext.h>

#include "clock.h"
#include "context_store.h"
#include "process.h"
#include "raw_syscall.h"
#include "symbol_presence.h"

using namespace callprof::rt;

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" {
__attribute__((visibility("hidden"))) uint64_t callprof_start_context;  // glibc's __start_context
__attribute__((visibility("hidden"))) void callprof_context_end();
__attribute__((visibility("hidden"))) void callprof_note_context_end(const ucontext_t* link);
}

// Entered by the `ret` of a makecontext function (rsp 16-byte aligned); rbx still holds
// what makecontext put there: the address of the uc_link slot that __start_context reads.
asm(".text\n"
    ".globl callprof_context_end\n"
    ".hidden callprof_context_end\n"
    ".type callprof_context_end, @function\n"
    "callprof_context_end:\n"
    "  .cfi_startproc\n"
    "  .cfi_undefined rip\n"
    "  mov (%rbx), %rdi\n"
    "  call callprof_note_context_end\n"
    "  jmp *callprof_start_context(%rip)\n"
    "  .cfi_endproc\n"
    ".size callprof_context_end, .-callprof_context_end\n");

namespace {

using MakeFn = void (*)(ucontext_t*, void (*)(), int, ...);
using SwapFn = int (*)(ucontext_t*, const ucontext_t*);
using SetFn = int (*)(const ucontext_t*);

struct {
  MakeFn make;
  SwapFn swap;
  SetFn set;
  bool patch_returns;
} real;

bool shadow_stack_active() {
  constexpr long kArchShstkStatus = 0x5005;  // arch_prctl(ARCH_SHSTK_STATUS, &features)
  uint64_t features = 0;
  return sys::call(SYS_arch_prctl, kArchShstkStatus, sys::p(&features)) == 0 && (features & 1);
}

__attribute__((constructor)) void resolve_context_functions() {
  real.make = reinterpret_cast<MakeFn>(next_symbol("makecontext"));
  real.swap = reinterpret_cast<SwapFn>(next_symbol("swapcontext"));
  real.set = reinterpret_cast<SetFn>(next_symbol("setcontext"));
  // A hardware shadow stack would refuse the changed return address.
  real.patch_returns = !shadow_stack_active();
}

uint64_t context_sp(const ucontext_t* ucp) { return uint64_t(ucp->uc_mcontext.gregs[REG_RSP]); }

// Made by makecontext and not started since: its entry function returns into our stub.
bool fresh(const ucontext_t* ucp) {
  const uint64_t* sp = reinterpret_cast<const uint64_t*>(context_sp(ucp));
  return sp && *sp == reinterpret_cast<uint64_t>(callprof_context_end);
}

// The thread's state when the switch is ours to follow: not inside one of our hooks (a
// signal handler that interrupted one), and with a store (mapped now if `create`).
ThreadState* following(ContextStore** st, bool create = true) {
  ThreadState* s = t_state;
  if (!s || s->busy || (!create && !s->contexts)) return nullptr;
  *st = context_store(&s->contexts);
  return *st ? s : nullptr;
}

// Control is about to continue in `ucp`; the running context's frames are gone from the
// profile (saved or closed). Its own frames come back, if it has any.
void enter_context(ContextStore* st, ThreadProfile& p, const ucontext_t* ucp, uint64_t now) {
  if (SavedContext* c = find_saved(st, reinterpret_cast<uint64_t>(ucp))) restore_context(st, p, c, now);
}

// A fresh context cannot land in the running one; any other unknown target may (a
// getcontext made further up this very stack): close what lies below it, as a longjmp.
void land(ContextStore* st, ThreadProfile& p, const ucontext_t* ucp, uint64_t now) {
  if (find_saved(st, reinterpret_cast<uint64_t>(ucp)) || fresh(ucp)) {
    p.unwind_all(now);  // left for good
    enter_context(st, p, ucp, now);
  } else {
    p.unwind_to_landing(context_sp(ucp), now);
  }
}

}  // namespace

void callprof_note_context_end(const ucontext_t* link) {
  ContextStore* st = nullptr;
  ThreadState* s = following(&st);
  if (!s) return;
  s->busy = 1;
  const uint64_t now = ticks();
  s->profile.unwind_all(now);  // the coroutine returned: whatever is open returned with it
  if (link) enter_context(st, s->profile, link, now);
  s->busy = 0;
}

CALLPROF_EXPORT void makecontext(ucontext_t* ucp, void (*func)(), int argc, ...) {
  // The arguments are passed on as glibc reads them: 64-bit words.
  constexpr int kMaxArgs = 32;
  uint64_t a[kMaxArgs] = {};
  va_list ap;
  va_start(ap, argc);
  for (int i = 0; i < argc && i < kMaxArgs; ++i) a[i] = va_arg(ap, uint64_t);
  va_end(ap);
  if (!real.make) resolve_context_functions();
  real.make(ucp, func, argc, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
            a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28],
            a[29], a[30], a[31]);
  if (!process().enabled) return;
  ContextStore* st = nullptr;
  if (ThreadState* s = following(&st, false)) {
    // A context suspended in this ucontext_t never resumes now.
    if (SavedContext* c = find_saved(st, reinterpret_cast<uint64_t>(ucp))) {
      s->busy = 1;
      close_saved(st, s->profile, c);
      s->busy = 0;
    }
  }
  // makecontext leaves __start_context's address where func will return; one glibc, one address.
  uint64_t* ret = reinterpret_cast<uint64_t*>(context_sp(ucp));
  if (!real.patch_returns || !ret || !*ret) return;
  uint64_t expected = 0;
  if (!__atomic_compare_exchange_n(&callprof_start_context, &expected, *ret, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE) &&
      expected != *ret)
    return;
  *ret = reinterpret_cast<uint64_t>(callprof_context_end);
}

// The bookkeeping happens before the switch: the code after the real call runs only when
// some later switch resumes `oucp`, and that switch has done the work.
CALLPROF_EXPORT int swapcontext(ucontext_t* oucp, const ucontext_t* ucp) {
  if (!real.swap) resolve_context_functions();
  ContextStore* st = nullptr;
  if (ThreadState* s = oucp && ucp ? following(&st) : nullptr) {
    s->busy = 1;
    const uint64_t now = ticks();
    ThreadProfile& p = s->profile;
    if (SavedContext* old = find_saved(st, reinterpret_cast<uint64_t>(oucp))) close_saved(st, p, old);
    if (!save_context(st, p, reinterpret_cast<uint64_t>(oucp), now)) p.unwind_all(now);  // no room: closed
    enter_context(st, p, ucp, now);
    s->busy = 0;
  }
  return real.swap(oucp, ucp);
}

CALLPROF_EXPORT int setcontext(const ucontext_t* ucp) {
  if (!real.set) resolve_context_functions();
  ContextStore* st = nullptr;
  if (ThreadState* s = ucp ? following(&st) : nullptr) {
    s->busy = 1;
    land(st, s->profile, ucp, ticks());
    s->busy = 0;
  }
  return real.set(ucp);
}

// Interposed library functions (LD_PRELOAD): the places where control leaves frames
// without their exit hooks (longjmp, C++ catch, pthread_exit), thread creation (to record
// the creator's call path), and process exits that skip atexit handlers (_exit).
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attach_frames.h"
#include "attach_replacements.h"
#include "clock.h"
#include "patched_calls.h"
#include "process.h"
#include "raw_syscall.h"
#include "symbol_presence.h"

using namespace callprof::rt;

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// Null where no library defines it (a C program has no __cxa_begin_catch), without the
// allocation a failed dlsym makes.
template <typename F>
F next_symbol(const char* name) {
  return reinterpret_cast<F>(callprof::rt::next_symbol(name));
}

using LongjmpFn = void (*)(__jmp_buf_tag*, int);
using CatchFn = void* (*)(void*);
using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
using ExitThreadFn = void (*)(void*);
using ExitFn = void (*)(int);

struct RealFunctions {
  LongjmpFn longjmp_, siglongjmp_, underscore_longjmp_, longjmp_chk_;
  CatchFn begin_catch;
  CreateFn pthread_create_;
  ExitThreadFn pthread_exit_;
  ExitFn exit_, underscore_exit_;
} real;

// Resolved at load time: siglongjmp is often called from signal handlers, where dlsym
// must not run.
__attribute__((constructor)) void resolve_real_functions() {
  real.longjmp_ = next_symbol<LongjmpFn>("longjmp");
  real.siglongjmp_ = next_symbol<LongjmpFn>("siglongjmp");
  real.underscore_longjmp_ = next_symbol<LongjmpFn>("_longjmp");
  real.longjmp_chk_ = next_symbol<LongjmpFn>("__longjmp_chk");
  real.begin_catch = next_symbol<CatchFn>("__cxa_begin_catch");
  real.pthread_create_ = next_symbol<CreateFn>("pthread_create");
  real.pthread_exit_ = next_symbol<ExitThreadFn>("pthread_exit");
  real.exit_ = next_symbol<ExitFn>("_exit");
  real.underscore_exit_ = next_symbol<ExitFn>("_Exit");
  ensure_initialized();
}

// glibc stores the stack pointer in a jmp_buf mangled with the thread's pointer guard
// (PTR_MANGLE: xor with %fs:0x30, rotate left 17). Undo it to learn where control lands.
uint64_t jmp_buf_stack_pointer(const __jmp_buf_tag* env) {
  uint64_t guard;
  asm("mov %%fs:0x30, %0" : "=r"(guard));
  uint64_t v = static_cast<uint64_t>(env->__jmpbuf[6]);
  v = (v >> 17) | (v << 47);
  return v ^ guard;
}

// Control is about to land at `landing_sp`. A handler that interrupted one of our hooks
// keeps its calls in the interrupt tree: a jump inside the handler closes only those;
// a jump out of it closes them all and unwinds the main tree. The interrupted hook never
// resumes then: its partial update is harmless (each step leaves the state consistent),
// and its busy flag must be cleared here or the thread would stop recording.
void land_at(uint64_t landing_sp, const __jmp_buf_tag* env = nullptr) {
  ThreadState* s = t_state;
  // Attached, a thread with no hook yet may have frames open since the window began (a
  // throw under way then): they are pushed now, so that those the jump leaves close here
  // rather than at a later return.
  if (!s && attach_frames_pending()) s = attach_thread_at(landing_sp);
  if (!s) return;
  uint64_t now = ticks();
  if (s->interrupts.depth() > 0) {
    s->interrupts_busy = 1;
    bool inside_handler = s->interrupts.unwind_to_landing(landing_sp, now);
    if (!inside_handler) s->interrupts.unwind_all(now);
    s->interrupts_busy = 0;
    if (inside_handler) return;
  }
  s->busy = 1;
  uint32_t depth = env ? setjmp_depth(s, reinterpret_cast<uint64_t>(env)) : UINT32_MAX;
  if (depth != UINT32_MAX)
    s->profile.unwind_to_depth(depth, now);
  else
    s->profile.unwind_to_landing(landing_sp, now);
  s->busy = 0;
}

[[noreturn]] void do_longjmp(LongjmpFn& fn, const char* name, __jmp_buf_tag* env, int val) {
  land_at(jmp_buf_stack_pointer(env), env);
  if (!fn) fn = next_symbol<LongjmpFn>(name);  // called before our constructor ran
  fn(env, val);
  __builtin_unreachable();
}

void* start_thread(void* p);

struct StartArgs {
  void* (*routine)(void*);
  void* arg;
  uint32_t creator_tid;
  uint32_t creator_node;
};

// The start arguments travel in slots of the runtime's own, not in the program's malloc.
// The creator claims a slot, the new thread releases it; when all are in flight, a page
// of its own is mapped (and unmapped by the thread).
struct StartSlot {
  StartArgs args;
  uint32_t used;
  uint32_t mapped;
};
constexpr uint32_t kStartSlots = 128;
StartSlot g_start_slots[kStartSlots];
uint32_t g_next_start_slot;

StartSlot* claim_start_slot() {
  const uint32_t first = __atomic_fetch_add(&g_next_start_slot, 1u, __ATOMIC_RELAXED);
  for (uint32_t i = 0; i < kStartSlots; ++i) {
    StartSlot& slot = g_start_slots[(first + i) % kStartSlots];
    uint32_t expected = 0;
    if (__atomic_compare_exchange_n(&slot.used, &expected, 1u, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      slot.mapped = 0;
      return &slot;
    }
  }
  void* page = sys::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  if (!page) return nullptr;
  auto* slot = static_cast<StartSlot*>(page);
  slot->mapped = 1;
  return slot;
}

void release_start_slot(StartSlot* slot) {
  if (slot->mapped)
    sys::munmap(slot, 4096);
  else
    __atomic_store_n(&slot->used, 0u, __ATOMIC_RELEASE);
}

}  // namespace

CALLPROF_EXPORT void longjmp(__jmp_buf_tag env[1], int val) { do_longjmp(real.longjmp_, "longjmp", env, val); }
CALLPROF_EXPORT void siglongjmp(__jmp_buf_tag env[1], int val) { do_longjmp(real.siglongjmp_, "siglongjmp", env, val); }
CALLPROF_EXPORT void _longjmp(__jmp_buf_tag env[1], int val) {
  do_longjmp(real.underscore_longjmp_, "_longjmp", env, val);
}
CALLPROF_EXPORT void __longjmp_chk(__jmp_buf_tag env[1], int val) {
  do_longjmp(real.longjmp_chk_, "__longjmp_chk", env, val);
}

// The catching function's landing pad calls this with its own stack pointer: every frame
// below it was unwound. GCC already ran their exit hooks; Clang did not. A patched
// program's frames still there get their trampoline back (patched_calls.h).
CALLPROF_EXPORT void* __cxa_begin_catch(void* exception) noexcept {
  land_at(CALLPROF_CALLER_SP());
  reinstall_returns(CALLPROF_CALLER_SP());
  // libstdc++ may have arrived after load time (a C program dlopen()ing C++ code).
  if (!real.begin_catch) real.begin_catch = next_symbol<CatchFn>("__cxa_begin_catch");
  return real.begin_catch(exception);
}

CALLPROF_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*), void* arg) {
  if (!real.pthread_create_) resolve_real_functions();
  if (!process().enabled) return real.pthread_create_(thread, attr, routine, arg);
  StartSlot* slot = claim_start_slot();
  if (!slot) return real.pthread_create_(thread, attr, routine, arg);
  ThreadState* s = t_state;
  // Attached, a thread may create one before its first hook: its frames open at the attach
  // are the creator's path.
  if (!s && attach_frames_pending()) s = attach_thread_at(CALLPROF_CALLER_SP());
  if (s) s->profile.pin(s->profile.top_node());  // the new thread refers to it: never pruned
  slot->args = StartArgs{routine, arg, s ? s->tid : 0, s ? s->profile.top_node() : UINT32_MAX};
  int rc = real.pthread_create_(thread, attr, start_thread, slot);
  if (rc != 0) release_start_slot(slot);
  return rc;
}

namespace {
void* start_thread(void* p) {
  StartArgs a = static_cast<StartSlot*>(p)->args;
  release_start_slot(static_cast<StartSlot*>(p));
  if (ThreadState* s = t_state ? t_state : attach_thread()) {
    s->creator_tid = a.creator_tid;
    s->creator_node = a.creator_node;
    s->start_routine = reinterpret_cast<uint64_t>(a.routine);
  }
  return a.routine(a.arg);  // thread exit is handled by the registry's key destructor
}
}  // namespace

CALLPROF_EXPORT void pthread_exit(void* value) {
  finish_thread(t_state, false);    // close frames now; memory goes at the key destructor
  restore_returns_for_unwinding();  // a forced unwind follows
  if (!real.pthread_exit_) real.pthread_exit_ = next_symbol<ExitThreadFn>("pthread_exit");
  real.pthread_exit_(value);
  __builtin_unreachable();
}

// _exit skips atexit handlers and destructors: write the dump first (fork children
// commonly leave this way).
[[noreturn]] static void exit_now(ExitFn fn, int status) {
  if (process().enabled) write_dump();
  if (!fn) fn = next_symbol<ExitFn>("_exit");
  fn(status);
  __builtin_unreachable();
}

CALLPROF_EXPORT void _exit(int status) { exit_now(real.exit_, status); }
CALLPROF_EXPORT void _Exit(int status) { exit_now(real.underscore_exit_, status); }

extern "C" __attribute__((visibility("hidden"), alias("_exit")))
CALLPROF_SAME_ATTRIBUTES(_exit) void callprof_own__exit(int);
extern "C" __attribute__((visibility("hidden"), alias("_Exit")))
CALLPROF_SAME_ATTRIBUTES(_Exit) void callprof_own__Exit(int);
extern "C" __attribute__((visibility("hidden"), alias("pthread_create")))
CALLPROF_SAME_ATTRIBUTES(pthread_create) int callprof_own_pthread_create(pthread_t*, const pthread_attr_t*,
                                                                         void* (*)(void*), void*);
extern "C" __attribute__((visibility("hidden"), alias("pthread_exit")))
CALLPROF_SAME_ATTRIBUTES(pthread_exit) void callprof_own_pthread_exit(void*);
extern "C" __attribute__((visibility("hidden"), alias("longjmp")))
CALLPROF_SAME_ATTRIBUTES(longjmp) void callprof_own_longjmp(__jmp_buf_tag*, int);
extern "C" __attribute__((visibility("hidden"), alias("siglongjmp")))
CALLPROF_SAME_ATTRIBUTES(siglongjmp) void callprof_own_siglongjmp(__jmp_buf_tag*, int);
extern "C" __attribute__((visibility("hidden"), alias("_longjmp")))
CALLPROF_SAME_ATTRIBUTES(_longjmp) void callprof_own__longjmp(__jmp_buf_tag*, int);
extern "C" __attribute__((visibility("hidden"), alias("__longjmp_chk")))
CALLPROF_SAME_ATTRIBUTES(__longjmp_chk) void callprof_own___longjmp_chk(__jmp_buf_tag*, int);
extern "C" __attribute__((visibility("hidden"), alias("__cxa_begin_catch")))
CALLPROF_SAME_ATTRIBUTES(__cxa_begin_catch) void* callprof_own___cxa_begin_catch(void*) noexcept;

// For an attached program's GOT (attach_replacements.h): by hidden aliases, which bind here.
uint64_t callprof::rt::intercept_replacement(const char* name) {
  static const OwnFunction kOwn[] = {
      {"_exit", reinterpret_cast<const void*>(&callprof_own__exit)},
      {"_Exit", reinterpret_cast<const void*>(&callprof_own__Exit)},
      {"pthread_create", reinterpret_cast<const void*>(&callprof_own_pthread_create)},
      {"pthread_exit", reinterpret_cast<const void*>(&callprof_own_pthread_exit)},
      {"longjmp", reinterpret_cast<const void*>(&callprof_own_longjmp)},
      {"siglongjmp", reinterpret_cast<const void*>(&callprof_own_siglongjmp)},
      {"_longjmp", reinterpret_cast<const void*>(&callprof_own__longjmp)},
      {"__longjmp_chk", reinterpret_cast<const void*>(&callprof_own___longjmp_chk)},
      {"__cxa_begin_catch", reinterpret_cast<const void*>(&callprof_own___cxa_begin_catch)}};
  return own_function(kOwn, name);
}

__attribute__((destructor)) static void dump_at_exit() {
  if (process().enabled) write_dump();
}

// The compiler's entry/exit hooks (-finstrument-functions): the hot path (hook_path.h).
#include "hook_path.h"

using namespace callprof::rt;

// The hooks (and ThreadProfile::pop) start on a cache line: code added anywhere else in the
// runtime (GCC's cold partitions come first in .text) otherwise moves them across line and
// 32-byte boundaries: adding the patched calibration workload made a hooked call 0.4 ns
// dearer and the calibration 0.3 ns cheaper (medians of 15 interleaved recordings of
// tests/e2e/programs/fib.c), a compensated fib at twice its plain time.
#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default"), aligned(64)))

CALLPROF_EXPORT void __cyg_profile_func_enter(void* fn, void* callsite) {
  // Where this hook returns to tells an inlined instance (the host's code) from a call.
  hook_enter(reinterpret_cast<uint64_t>(fn), reinterpret_cast<uint64_t>(callsite), CALLPROF_CALLER_SP(),
             reinterpret_cast<uint64_t>(__builtin_return_address(0)));
}

CALLPROF_EXPORT void __cyg_profile_func_exit(void* fn, void* /*callsite*/) {
  hook_exit(reinterpret_cast<uint64_t>(fn), CALLPROF_CALLER_SP(),
            reinterpret_cast<uint64_t>(__builtin_return_address(0)));
}

// The same functions under hidden names, which bind inside this library (attach.cpp).
extern "C" __attribute__((visibility("hidden"), alias("__cyg_profile_func_enter"))) void callprof_enter_hook(void*,
                                                                                                             void*);
extern "C" __attribute__((visibility("hidden"), alias("__cyg_profile_func_exit"))) void callprof_exit_hook(void*,
                                                                                                           void*);

namespace callprof::rt {

namespace {

// A call of a removed function, counted on its path, or per function as its stubs count
// (where its entry's call stays for good, or the thread has no room to fold it); false
// while its index is being written.
bool count_removed_call(ThreadState* s, uint64_t fn, uint64_t callsite, uint64_t hook_ret) {
  if (!entry_call_stays(fn, hook_ret) && (s->profile.folded(fn) || s->profile.fold(fn))) {
    s->profile.count_folded(fn, callsite);
    return true;
  }
  return count_unhooked_call(s, fn);
}

}  // namespace

void enter_general(uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t hook_ret) {
  hook_enter_general(fn, callsite, sp, hook_ret);
}

void enter_after_switches(ThreadState* s, uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t hook_ret) {
  drain_events(s);
  s->profile.enter(fn, callsite, sp, ticks(), hook_ret);
  s->busy = 0;
}

void enter_placed_slowly(ThreadState* s, uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t now, uint64_t hook_ret) {
  s->profile.enter(fn, callsite, sp, now, hook_ret);
  s->busy = 0;
}

void exit_general(uint64_t fn, uint64_t sp, uint64_t hook_ret) { hook_exit_general(fn, sp, hook_ret); }

void exit_after_switches(ThreadState* s, uint64_t fn, uint64_t sp) {
  drain_events(s);
  s->profile.exit(fn, sp, ticks());
  s->busy = 0;
}

void exit_closed_slowly(ThreadState* s, uint64_t fn, uint64_t sp, uint64_t now) {
  s->profile.exit(fn, sp, now);
  s->busy = 0;
}

void excluded_call(uint64_t fn, uint64_t callsite, uint64_t hook_ret) {
  if (ThreadState* s = t_state; s && !s->busy) {
    s->busy = 1;
    if (!(removed_folded_function(fn) && count_removed_call(s, fn, callsite, hook_ret)))
      if (DumpNodeMetrics* m = s->profile.top_metrics()) ++m->excluded_calls;
    s->busy = 0;
  }
  remove_entry_hooks(fn, hook_ret);
}

void close_top_frame(ThreadState* s, uint64_t fn, uint64_t sp) {
  if (!s->profile.top_frame_is(fn, sp)) return;
  s->busy = 1;
  if (*s->events.head != s->events.consumed) drain_events(s);
  s->profile.exit(fn, sp, exit_ticks());
  s->busy = 0;
}

void excluded_exit(uint64_t fn, uint64_t sp, uint64_t hook_ret) {
  if (!g_remove_hooks) return;
  if (ThreadState* s = t_state; s && !s->busy) close_top_frame(s, fn, sp);
  remove_exit_hook(fn, hook_ret);
}

}  // namespace callprof::rt

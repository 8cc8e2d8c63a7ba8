// The compiler's entry/exit hooks (-finstrument-functions). This is the hot path: a
// thread-local load, a busy flag that sends signal handlers' hooks elsewhere, one TSC
// read, and the inline ThreadProfile bookkeeping. No locks, allocation or system calls
// once a thread is attached.
#include "clock.h"
#include "process.h"

using namespace callprof::rt;

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

CALLPROF_EXPORT void __cyg_profile_func_enter(void* fn, void* callsite) {
  const uint64_t now = ticks();
  ThreadState* s = t_state;
  if (__builtin_expect(s == nullptr, 0)) {
    s = attach_thread();
    if (!s) return;
  }
  if (__builtin_expect(s->busy, 0))
    return enter_interrupting(s, reinterpret_cast<uint64_t>(fn), reinterpret_cast<uint64_t>(callsite),
                              CALLPROF_CALLER_SP(), now);
  s->busy = 1;
  s->profile.enter(reinterpret_cast<uint64_t>(fn), reinterpret_cast<uint64_t>(callsite), CALLPROF_CALLER_SP(), now);
  s->busy = 0;
}

CALLPROF_EXPORT void __cyg_profile_func_exit(void* fn, void* /*callsite*/) {
  const uint64_t now = ticks();
  ThreadState* s = t_state;
  if (__builtin_expect(s == nullptr, 0)) return;
  if (__builtin_expect(s->busy, 0))
    return exit_interrupting(s, reinterpret_cast<uint64_t>(fn), CALLPROF_CALLER_SP(), now);
  s->busy = 1;
  s->profile.exit(reinterpret_cast<uint64_t>(fn), CALLPROF_CALLER_SP(), now);
  s->busy = 0;
}

// The per-call path shared by the compiler's hooks and the library-call trampolines: a
// thread-local load, a busy flag that sends signal handlers' hooks elsewhere, the check for
// pending context-switch records (one load and compare), and the inline ThreadProfile
// bookkeeping. No locks, allocation or system calls once a thread is attached.
#pragma once

#include "attach_frames.h"
#include "clock.h"
#include "code_patch.h"
#include "function_plan.h"
#include "hook_removal.h"
#include "process.h"

namespace callprof::rt {

// record --ordered-clock: returns read the clock after the callee's work completed.
extern bool g_ordered_clock;

// A return's clock read: with --ordered-clock, after the callee's work has completed (a
// signal handler's returns too).
__attribute__((always_inline)) inline uint64_t exit_ticks() {
  return __builtin_expect(g_ordered_clock, 0) ? ordered_ticks() : ticks();
}

// A call of a function in the exclusion cache: filtered out (counted at the calling path)
// or folded and removed (counted as a folded call of this thread); its hook call is
// rewritten away (hook_removal.h). `hook_ret` 0: not a compiler hook.
__attribute__((noinline)) void excluded_call(uint64_t fn, uint64_t callsite, uint64_t hook_ret);
// The return of a function in the exclusion cache: a removed function's frame that this
// thread had pushed before the removal is closed as usual.
__attribute__((noinline)) void excluded_exit(uint64_t fn, uint64_t sp, uint64_t hook_ret);

// The return of a function whose entries push nothing now (folded by this thread, or
// removed): its frame, pushed before, is closed when it is the top one (a wrapper open when
// it folded: --auto-fold wrappers; a call entered before the removal). Out of line, so the
// hooked return's code stays as the calibration measured it. `s` is not busy.
__attribute__((noinline)) void close_top_frame(ThreadState* s, uint64_t fn, uint64_t sp);

// A call of a function this thread folded (auto-fold): counted on its node, no clock read;
// then removed for the whole process.
__attribute__((noinline)) inline void count_folded_call(ThreadState* s, uint64_t fn, uint64_t callsite,
                                                        uint64_t hook_ret) {
  s->busy = 1;
  s->profile.count_folded(fn, callsite);
  s->busy = 0;
  if (g_remove_hooks && hook_ret && !rewriting_refused() && remove_folded_function(fn))
    remove_entry_hooks(fn, hook_ret);
}

// Excluded functions are recognised before anything else (no clock read). The clock is read
// before the bookkeeping: measured faster here than reading it only for recorded calls
// (the read overlaps the lookup).
// `hook_ret`: where the compiler's enter hook returns to (0: not a compiler hook).
__attribute__((always_inline)) inline void hook_enter_general(uint64_t fn, uint64_t callsite, uint64_t sp,
                                                              uint64_t hook_ret = 0) {
  if (__builtin_expect(known_excluded(fn), 0)) return excluded_call(fn, callsite, hook_ret);
  ThreadState* s = t_state;
  if (__builtin_expect(s == nullptr, 0)) {
    s = attach_thread_at(sp);
    if (!s) return;
  }
  if (__builtin_expect(s->busy, 0)) return enter_interrupting(s, fn, callsite, sp, ticks());
  if (__builtin_expect(s->profile.folded(fn), 0)) return count_folded_call(s, fn, callsite, hook_ret);
  s->busy = 1;
  if (__builtin_expect(*s->events.head != s->events.consumed, 0)) drain_events(s);
  const uint64_t now = ticks();
  s->profile.enter(fn, callsite, sp, now, hook_ret);
  s->busy = 0;
}

// `hook_ret`: where the compiler's exit hook returns to (0: not a compiler hook).
__attribute__((always_inline)) inline void hook_exit_general(uint64_t fn, uint64_t sp, uint64_t hook_ret = 0) {
  if (__builtin_expect(known_excluded(fn), 0)) return excluded_exit(fn, sp, hook_ret);
  ThreadState* s = t_state;
  if (__builtin_expect(s == nullptr, 0)) {
    // A thread's first hook after an attach may be the return of a frame open since before.
    if (!attach_frames_pending()) return;
    s = attach_thread_at(sp);
    if (!s) return;
  }
  if (__builtin_expect(s->profile.folded(fn), 0) && !s->busy) return close_top_frame(s, fn, sp);
  if (__builtin_expect(s->busy, 0)) return exit_interrupting(s, fn, sp, exit_ticks());
  s->busy = 1;
  // Switches are drained before the clock is read, as at entry: an interval drained here
  // lies before `now`, in the time of the frame it is charged to (the top). Read first, a
  // preemption landing just after the read (interrupts tend to arrive right after a clock
  // read) put its wall time in the caller's self and its off-CPU time in the callee's.
  if (__builtin_expect(*s->events.head != s->events.consumed, 0)) drain_events(s);
  const uint64_t now = exit_ticks();
  s->profile.exit(fn, sp, now);
  s->busy = 0;
}

// The hooks' general paths, out of line, and where the fast paths below hand over: from
// the start, after the thread was marked busy, or after the clock was read (`s` busy).
__attribute__((noinline)) void enter_general(uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t hook_ret);
__attribute__((noinline)) void enter_after_switches(ThreadState* s, uint64_t fn, uint64_t callsite, uint64_t sp,
                                                    uint64_t hook_ret);
__attribute__((noinline)) void enter_placed_slowly(ThreadState* s, uint64_t fn, uint64_t callsite, uint64_t sp,
                                                   uint64_t now, uint64_t hook_ret);
__attribute__((noinline)) void exit_general(uint64_t fn, uint64_t sp, uint64_t hook_ret);
__attribute__((noinline)) void exit_after_switches(ThreadState* s, uint64_t fn, uint64_t sp);
__attribute__((noinline)) void exit_closed_slowly(ThreadState* s, uint64_t fn, uint64_t sp, uint64_t now);

// The hooks as a call meets them most of the time, in as few instructions as it can: on
// this Intel Xeon the clock read issues nothing beside it, so every instruction of the
// hook adds its own time (bench/README.md, "A hooked call in fewer instructions"). No call
// but the tail calls to the general paths, so the compiler sets up no frame and saves only
// the registers its own values need (five at entry, two at exit): anything
// unusual (an excluded or folded function, a thread without state or busy, switches to
// drain, a callee not the last one's, an ordered clock...) goes to the general path,
// which tests everything again.
__attribute__((always_inline)) inline void hook_enter(uint64_t fn, uint64_t callsite, uint64_t sp,
                                                      uint64_t hook_ret = 0) {
  ThreadState* s = t_state;
  if (__builtin_expect(known_excluded(fn) || s == nullptr || s->busy || s->profile.folded(fn), 0))
    return enter_general(fn, callsite, sp, hook_ret);
  s->busy = 1;
  if (__builtin_expect(*s->events.head != s->events.consumed, 0))
    return enter_after_switches(s, fn, callsite, sp, hook_ret);
  const uint64_t now = ticks();
  if (__builtin_expect(!s->profile.enter_fast(fn, callsite, sp, now), 0))
    return enter_placed_slowly(s, fn, callsite, sp, now, hook_ret);
  s->busy = 0;
}

__attribute__((always_inline)) inline void hook_exit(uint64_t fn, uint64_t sp, uint64_t hook_ret = 0) {
  ThreadState* s = t_state;
  if (__builtin_expect(known_excluded(fn) || s == nullptr || s->busy || s->profile.folded(fn) || g_ordered_clock, 0))
    return exit_general(fn, sp, hook_ret);
  s->busy = 1;
  if (__builtin_expect(*s->events.head != s->events.consumed, 0)) return exit_after_switches(s, fn, sp);
  const uint64_t now = ticks();
  if (__builtin_expect(!s->profile.exit_fast(fn, now), 0)) return exit_closed_slowly(s, fn, sp, now);
  s->busy = 0;
}

}  // namespace callprof::rt

// Process-wide runtime state: configuration, the registry of thread profiles, thread
// attach/finish and the fork reset. Nothing here runs on the per-call hot path except the
// thread-local pointer read by the hooks.
#pragma once

#include <stdint.h>

#include "config.h"
#include "function_plan.h"
#include "thread_events.h"
#include "thread_profile.h"

namespace callprof::rt {

// Where a setjmp was made: the shadow-stack depth then, and the frame on top (its stack
// pointer and entry time tell whether that same activation is still there).
struct JumpTarget {
  uint64_t env;
  uint64_t top_sp;
  uint64_t top_entry;
  uint32_t depth;
  uint32_t reserved;
};
inline constexpr uint32_t kJumpTargets = 16;

struct ThreadState {
  ThreadProfile profile;
  uint32_t busy;             // set while a hook runs: a signal handler's hooks go to `interrupts`
  uint32_t interrupts_busy;  // a handler interrupting a handler's hook: dropped and counted
  ThreadEvents events;
  ThreadProfile interrupts;  // calls of handlers that interrupted a hook (see wire::DumpThread)
  uint32_t tid;
  uint32_t creator_tid;
  uint32_t creator_node;
  uint32_t finished;
  // Teardown handshake with dumps written by other threads (hold_thread below).
  uint32_t tearing_down;  // set by the owner while it closes the ring and gives memory back
  uint32_t held;          // set by another thread's dump writer while it reads this state
  uint64_t start_routine;
  uint64_t start_tsc;
  uint64_t end_tsc;
  char name[16];
  JumpTarget jump_targets[kJumpTargets];  // the most recent setjmps, round robin
  uint32_t next_jump_target;
  uint32_t closed_seen;  // closed libraries whose nodes this thread has moved (closed_modules.h)
  void* contexts;        // suspended coroutines' frames (context_store.h), mapped at the first switch
  ThreadState* next;     // registry link
  void* mapping;         // the one mapping holding this struct and its memory
  uint64_t mapping_bytes;
  // Calls through counting stubs (counting_stubs.h), by the index of their function among
  // the removed ones (hook_removal.h); written by the stubs, last so that the hooks' fields
  // keep their places and pages no stub touches stay untouched.
  uint64_t unhooked_calls[kExclusionSlots];
  // Attached: the counts as the window closed (its stubs keep counting until the detach
  // has given every site its bytes back), which the dump gives; `unhooked_closed` says
  // they were taken.
  uint64_t unhooked_at_close[kExclusionSlots];
  uint32_t unhooked_closed;
};
// Where the stubs find a thread's counts: unhooked_calls' offset in ThreadState.
int32_t unhooked_calls_offset();

extern __thread ThreadState* t_state __attribute__((tls_model("initial-exec")));

// Null when profiling is off (no output directory) or memory could not be had.
ThreadState* attach_thread();
// attach_thread() at a hook whose stack pointer is `sp`: a thread that was running when an
// attached window began first gets the frames it had open then (attach_frames.h).
ThreadState* attach_thread_at(uint64_t sp);
// Close all frames and record the end; when `release` the big reservations are returned
// and the thread must not use its state again.
void finish_thread(ThreadState* s, bool release);
// Another thread's dump writer reads a thread state only between hold_thread and
// release_thread: teardown (finish_thread) waits for the holder before it unmaps the ring
// or gives memory back, and a writer that arrives during a teardown waits until it is
// over. A state becomes visible (first_thread) only once fully set up.
void hold_thread(ThreadState* s);
void release_thread(ThreadState* s);
// Hooks that arrive while the thread is inside a hook (a signal handler interrupted it).
void enter_interrupting(ThreadState* s, uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t now);
void exit_interrupting(ThreadState* s, uint64_t fn, uint64_t sp, uint64_t now);
// The shadow-stack depth recorded by the setjmp that filled `env`, or UINT32_MAX when
// unknown or no longer valid (setjmp_intercept.cpp).
uint32_t setjmp_depth(ThreadState* s, uint64_t env);
// First thread state of the list of this process's threads.
ThreadState* first_thread();

struct ProcessInfo {
  bool enabled;
  uint32_t pid, ppid;
  uint64_t tsc_start, mono_start_ns;
  int64_t realtime_start_ns;
  uint64_t cpu_start_ns;  // the process's CPU clock as the image (or the fork's child) started
  RuntimeConfig config;
  // The hooks' own cost per call, measured at start-up (hook_calibration.cpp), per compiler.
  wire::DumpHookCosts hook_costs[wire::kHookSets];
  AutoFold auto_fold;   // set once the hooks' cost is known; max_self_ticks 0: off
  double ticks_per_ns;  // measured at start-up; 0 when not measured
  // record of a program built to be attached: 1 its entries were patched into calls at
  // start-up (patched_calls.h), a negative errno-like code when they could not be; 0 else.
  int32_t patch_status;
  uint32_t patch_step;  // wire::PatchStep, when patch_status < 0
};
const ProcessInfo& process();
void ensure_initialized();
// Attached (attach.cpp), with the settings in place: the runtime starts recording, the
// calling thread first (it measures the hooks' cost). False when the settings turn it off.
bool start_recording();
// Whether this runtime was attached to a running program (attach.cpp), not preloaded.
bool attached_mode();
// Attached: the image is about to end by exec, its data written (true), or the exec failed
// and it goes on (false). callprof ends the window when it sees the image end.
void attached_image_ends(bool ends);
// Detached: no thread starts recording from now on, and no dump is written at exit.
void stop_recording();
// Attached again after a detach: the settings re-read, every thread's tree emptied, a new
// window begins. Only while no hook runs (the program's slots still point at glibc's).
bool resume_recording();

// Set while an attached window closes (attach.cpp, ThreadProfile::set_window_closing_flag).
extern bool g_window_closing;
// When it began to close (0: open, or not attached): a thread that ended after was still
// running at the window's end (the dump says so).
extern uint64_t g_window_end_tsc;
// Detached, the window's data written (attach.cpp): every thread's trees are emptied and
// their memory given back to the system, so that the program's memory use is what it was
// but for each thread's state; the mappings stay (a hook may still be running somewhere).
void release_window_memory();
// The window closes: each thread's counting stubs' counts as of now go into the dump.
void freeze_unhooked_counts();
// A window begins, every other thread stopped: the counting stubs' counts restart from 0
// (the stubs kept counting while the runtime was dormant).
void clear_unhooked_counts();

// Before the image's last dump: the hooks' costs taken unchecked from the recorder's cache
// are checked now, and those measured in the recording checked again (how far they moved
// during the run), where the hooks' estimated cost is a share of the image's CPU time that
// matters (process_calibration.h; docs/design.md, "Compensation"). Attached, the window's
// end checks them, before the hooks are given back (the runtime's own calibration calls
// would reach glibc's empty hooks after): not again while the window closes.
void check_costs_at_exit();

// Write this process image's dump (all threads, open frames included), once per image;
// an image that never entered a hook writes nothing. `death_signal`: a fatal signal is
// ending the image (crash_handler.cpp).
void write_dump(int death_signal = 0);
// Write a snapshot of the running image (replacing the previous one); safe to call from
// any thread, one at a time (snapshots.cpp serialises).
void write_snapshot(uint32_t seq);
// Remove the dump just written and allow another (an exec that failed).
void discard_dump();
// Allow another dump of this image, the last one kept (the next attached window's).
void allow_another_dump();

}  // namespace callprof::rt

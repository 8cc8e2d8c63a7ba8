// Attaching to a program built with -fpatchable-function-entry=5 (docs/attach.md,
// "Programs built to be attached"): every function starts with 5 bytes of nops, listed in
// its module's __patchable_function_entries section, and runs at the plain build's speed.
// At the window's start, with every other thread stopped, each site's nops become
// `call STUB` (a stub mapped within reach of the module jumps to the entry trampoline,
// patched_trampolines.S). The entry replaces the function's return address with the return
// trampoline and keeps the real one on this thread's return stack, so its return is seen
// as uftrace's dynamic tracing sees it. At detach the sites get their nops back, with
// code_patch.h's protocol, while the threads run; a return address replaced before then
// still comes back through the (dormant) trampoline, until callprof, before the next
// window, puts the real ones back (the stacks are on a list it reads: wire/return_stacks.h).
//
// The return stack is the one thing a mistake here would turn into a crash of the program:
// an entry is pushed before its return address is replaced, and found again by the slot's
// address (the topmost match: a frame abandoned by longjmp is dropped when a frame above it
// on the same stack returns). An unwinder must never meet the trampoline: before a C++
// exception, a forced unwind (pthread_exit) or a thread's exit walks the stack, every
// replaced address of the thread is put back; at the catch, the frames still there get the
// trampoline again (uftrace's way too).
#pragma once

#include <stdint.h>

#include "patched_sites.h"

namespace callprof::wire {
struct AttachFrame;
}

namespace callprof::rt {

// The window begins, every other thread stopped: the frames open at the attach whose
// return slots callprof found get the trampoline, the sites become calls, and the returns
// of the calls made from now on are recorded. 0, or a negative errno-like code (nothing
// changed then: -ENOMEM, or the mprotect's error when the system refuses writable code).
int begin_patched_window(const wire::AttachFrame* frames, uint32_t count);
// Whether a window is open: patched entries are being recorded (their costs are calibrated).
bool patched_window_open();
// `record` of a program built to be attached (its function plan lists the patchable
// sections): the sites become calls as the runtime starts, before the program's own
// constructors, and stay calls for the process's life. 0, or a negative errno-like code
// with the step that failed (wire::PatchStep) in `failed_step`: -EBUSY when the process
// already has other threads (writing the sites is safe only with every other thread
// stopped), the task list's, the GOT's or patch_sites' error.
int patch_entries_at_start(uint32_t* failed_step);
// From the same plan ("u" lines): a GOT entry of a module through which it calls one of the
// unwinders' entries (`name`), pointed at the runtime's stand-in by patch_entries_at_start,
// as an attach does (attach_replacements.h). False when `name` is no unwinder's or the
// list is full.
bool add_unwinder_slot(uint64_t slot, const char* name, bool read_only);
// The window ends (threads running): the sites get their bytes back, and the returns of
// frames entered before are no longer recorded. In a fork child that does not record,
// the same.
void unpatch_sites();

// Before an unwinder walks this thread's stack (a throw, pthread_exit): every return
// address it replaced is the real one again.
void restore_returns_for_unwinding();
// A catch whose frame's stack pointer is `landing_sp`: the frames below it are gone, the
// others get the trampoline back.
void reinstall_returns(uint64_t landing_sp);
// Every other thread stopped (a window that could not begin): every return address still
// replaced is the real one again, and the stacks are empty. (Before a later window,
// callprof does the same from outside: target/inject/return_addresses.h.)
void restore_all_returns();
// The thread ends: its stack is free (its frames have all returned or been unwound).
void release_return_stack();
// A fork child: its one thread's return stack is its own.
void own_return_stack_after_fork();

// The unwinders' entry points the runtime stands in for in an attached program's GOT
// (attach_replacements.h): each puts the thread's return addresses back first. 0: none.
uint64_t patched_replacement(const char* name);

}  // namespace callprof::rt

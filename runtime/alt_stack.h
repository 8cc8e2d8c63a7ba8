// The runtime's alternate signal stack, one per profiled thread, so that the crash-saving
// handler (SA_ONSTACK) runs even when the thread dies of a stack overflow, where no
// handler could run on the thread's own stack. The program's own alternate stacks win:
// a thread that has one when it is attached keeps it, a stack the program installs later
// replaces ours, and when the program disables its own, ours comes back. The interposed
// sigaltstack reports SS_DISABLE where ours is installed, so the program sees what it set.
#pragma once

namespace callprof::rt {

// The calling thread, being attached: install the runtime's stack unless it has one.
void attach_alt_stack();
// The calling thread, its state being released: remove ours, kept for a later thread or
// its memory returned.
void detach_alt_stack();

}  // namespace callprof::rt

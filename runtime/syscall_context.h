// Announcing a thread's shadow stack to the system-call probe (record --syscalls), so each
// traced call is placed under its exact instrumented caller (wire/syscall_context.h).
// One prctl per thread start, fork and thread end; nothing on the per-call path. While a
// thread is busy in the runtime (writing its data) the probe skips its calls.
#pragma once

namespace callprof::rt {

struct ThreadState;

// Tell the probe where `s`'s shadow stack and nodes are (when --syscalls asked for it).
void announce_syscall_context(const ThreadState* s);
// Withdraw the calling thread's announcement: its memory is being released.
void withdraw_syscall_context();
// A thread of the runtime's own (snapshots): the probe records none of its calls.
void mute_syscall_context();

}  // namespace callprof::rt

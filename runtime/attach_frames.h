// The frames each thread had open when an attached window began (wire/attach_frames.h),
// read from callprof's file at the window's start and pushed onto each thread's shadow
// stack once: at once for the threads the runtime already knows (they are stopped), at its
// first hook for a thread it meets later.
#pragma once

#include <stdint.h>

namespace callprof::wire {
struct AttachFrame;
}

namespace callprof::rt {

struct ThreadState;

// Reads the file, replacing an earlier window's; the frames' time starts at `now`. False
// when it cannot be read or is not such a file.
bool load_attach_frames(const char* path, uint64_t now);
// The frames read, for the patched program's returns (patched_calls.h).
const wire::AttachFrame* attach_frames(uint32_t* count);
// Forgets them: the window ended, and no hook runs here any more.
void drop_attach_frames();

extern bool g_attach_frames_pending;
inline bool attach_frames_pending() { return __atomic_load_n(&g_attach_frames_pending, __ATOMIC_ACQUIRE); }

// Pushes thread `s`'s frames (by its tid), once; how many. `sp`: the stack pointer of the
// thread's first hook, which must lie on the same stack as the frames and not above the
// outermost (else the thread is another that took an ended thread's id); 0: no check
// (the thread is stopped).
uint32_t open_attach_frames(ThreadState* s, uint64_t sp);

// A fork's child, forked by a thread whose frames were still waiting for its first hook
// (`forking_tid`, the parent's id of it): they become the child's (`tid`), open from the
// fork (`now`) as frames inherited at a fork are; the parent's other threads' are dropped.
void adopt_forking_thread_frames(uint32_t forking_tid, uint32_t tid, uint64_t now);

}  // namespace callprof::rt

// Hooks that arrive while the thread is already inside a hook: a signal handler
// interrupted it. The interrupted hook's update may be half done, so these calls go to a
// second tree, under a context node naming the main tree's top node; the recorder grafts
// them there. A handler interrupting a handler's hook is dropped and counted.
#include "process.h"

namespace callprof::rt {

__attribute__((noinline, cold)) void enter_interrupting(ThreadState* s, uint64_t fn, uint64_t callsite, uint64_t sp,
                                                        uint64_t now) {
  if (s->interrupts_busy) {
    s->profile.count_dropped_call();
    return;
  }
  s->interrupts_busy = 1;
  if (s->interrupts.depth() == 0) {         // the handler's first call: open its context frame
    s->profile.pin(s->profile.top_node());  // pruning must keep the node the context names
    s->interrupts.enter(wire::kInterruptedContext | s->profile.top_node(), 0, UINT64_MAX - 1, now);
  }
  s->interrupts.enter(fn, callsite, sp, now);
  s->interrupts_busy = 0;
}

__attribute__((noinline, cold)) void exit_interrupting(ThreadState* s, uint64_t fn, uint64_t sp, uint64_t now) {
  if (s->interrupts_busy) return;
  s->interrupts_busy = 1;
  s->interrupts.exit(fn, sp, now);
  if (s->interrupts.depth() == 1) s->interrupts.unwind_all(now);  // the handler returned
  s->interrupts_busy = 0;
}

}  // namespace callprof::rt

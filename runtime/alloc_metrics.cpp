// Allocation metrics: the entry points libcallprof-alloc.so (runtime/alloc/) calls after
// each allocation or free, charging the node on top of the calling thread's shadow stack.
// No locks, allocation or system calls: two loads, two counters.
#include "process.h"

using namespace callprof::rt;

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// Null when the thread has no state yet, runs without node metrics, or is inside one of
// our hooks (a signal handler interrupted it: the tree may be half updated, count nothing).
inline DumpNodeMetrics* begin_charge(ThreadState* s) {
  if (__builtin_expect(s == nullptr || s->busy != 0, 0)) return nullptr;
  DumpNodeMetrics* m = s->profile.top_metrics();
  if (m) {
    // A handler interrupting the update sends its hooks to the interrupt tree, so the
    // main tree cannot change (or be pruned) under `m`.
    s->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  }
  return m;
}

inline void end_charge(ThreadState* s) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  s->busy = 0;
}

}  // namespace

CALLPROF_EXPORT void callprof_rt_note_alloc(uint64_t bytes) {
  ThreadState* s = t_state;
  DumpNodeMetrics* m = begin_charge(s);
  if (!m) return;
  m->alloc_calls += 1;
  m->alloc_bytes += bytes;
  end_charge(s);
}

CALLPROF_EXPORT void callprof_rt_note_free(void) {
  ThreadState* s = t_state;
  DumpNodeMetrics* m = begin_charge(s);
  if (!m) return;
  m->free_calls += 1;
  end_charge(s);
}

// Threads handed over one at a time while a profile is read, so a consumer can reduce each
// (compensate it, summarise it, merge it into one tree) before the next is built: the
// threads' own trees of a large profile then never all sit in memory beside the merged
// one (trace/profile_file.h, ReadOptions::threads; query/thread_intake.h).
#pragma once

#include <cstddef>

#include "model/profile.h"

namespace callprof {

class ThreadSink {
 public:
  virtual ~ThreadSink() = default;
  // Before the first thread: the profile without threads (metadata, modules, functions,
  // processes), how many threads follow, and their trees' nodes in all. false declines:
  // the threads are then read as without a sink, and take() is never called.
  virtual bool begin(const Profile& head, size_t threads, size_t nodes) = 0;
  // Each thread in profile order, as soon as it is read and checked; `head` has the threads
  // taken before it. The sink may take the thread's tree (leaving an empty CallTree); the
  // thread then joins the profile as the sink left it.
  virtual void take(const Profile& head, size_t index, Thread& thread) = 0;
};

}  // namespace callprof

// Every thread of a process held stopped with ptrace, for as long as this lives: the moment
// an attached window begins (docs/attach.md). All are asked to stop first, then waited for,
// so the stop takes as long as the slowest thread, not the sum; a thread created meanwhile
// is found by listing the threads again until no new one appears.
#pragma once

#include <sys/types.h>

#include <vector>

#include "target/inject/ptrace_thread.h"
#include "util/result.h"

namespace callprof::inject {

class StoppedProcess {
 public:
  // Stops every thread of `pid` but `held` (one callprof holds already). Threads that end
  // meanwhile are left out.
  static Result<StoppedProcess> stop(pid_t pid, pid_t held, int timeout_ms);
  StoppedProcess(StoppedProcess&&) = default;
  // Lets them all go on as they were.
  ~StoppedProcess() = default;

  const std::vector<PtraceThread>& threads() const { return threads_; }
  std::vector<PtraceThread>& threads() { return threads_; }
  // Lets them go now.
  void release() { threads_.clear(); }

 private:
  StoppedProcess() = default;
  std::vector<PtraceThread> threads_;
};

}  // namespace callprof::inject

// One callprof at a time on a process's threads. The injector (injector_process.h) seizes
// the threads one after another while it looks for a safe point, with moments between when
// none is held, and it outlives a killed callprof until its step is done: an attach that
// began then found a thread still "stopped by a debugger", or failed to seize it. The lock
// is an abstract Unix socket named after the process: bound by the attach before it looks
// at the process, passed on to the injector, and gone with the last process holding it
// (no file to leave behind, nothing a crash can leave locked).
#pragma once

#include <sys/types.h>

#include "util/result.h"

namespace callprof::inject {

class AttachLock {
 public:
  // Waits up to `wait_ms` for an attach under way to let go. Where the system has no
  // Unix sockets the lock is empty and the attach goes on unlocked, as before.
  static Result<AttachLock> acquire(pid_t pid, int wait_ms);

  AttachLock() = default;
  AttachLock(AttachLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  AttachLock& operator=(AttachLock&& other) noexcept;
  AttachLock(const AttachLock&) = delete;
  AttachLock& operator=(const AttachLock&) = delete;
  ~AttachLock() { release(); }

  // The descriptor a forked injector keeps open to hold the lock after callprof ends; -1
  // for an empty lock.
  int fd() const { return fd_; }
  void release();

 private:
  explicit AttachLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace callprof::inject

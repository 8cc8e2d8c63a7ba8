// Holds a freshly forked child before exec until the sampling session has opened its events
// on it, so sampling starts exactly at exec (enable_on_exec) and no early thread or child
// escapes `inherit`. This is the handshake perf record uses.
//
// Use from the launcher (src/target/launcher.cpp):
//   auto gate = LaunchGate::create();          // before fork
//   pid = fork();
//   child:  if (!gate->wait_in_child()) _exit(127);  execvp(...);
//   parent: gate->close_child_end();
//           auto session = PerfSession::open_launched(pid, options);
//           session ? gate->release() : gate->abandon();   // abandon: the child exits 127
#pragma once

#include "util/result.h"

namespace callprof::perf {

class LaunchGate {
 public:
  static Result<LaunchGate> create();  // a close-on-exec pipe
  LaunchGate(LaunchGate&& other) noexcept;
  LaunchGate& operator=(LaunchGate&&) = delete;
  ~LaunchGate();  // closes what is still open: the child then sees "abandoned"

  // In the child, after fork and before exec; async-signal-safe (read and close only).
  // True when the parent released it, false when the parent closed the gate or died.
  bool wait_in_child() noexcept;
  // In the parent, right after fork.
  void close_child_end();
  void release();  // lets the child go on to exec
  void abandon();  // the child's wait_in_child returns false

 private:
  LaunchGate(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}
  int read_fd_ = -1, write_fd_ = -1;
};

}  // namespace callprof::perf

// Before attaching: what /proc says about the process, so that a target that would give
// no samples (a kernel thread, a stopped process, callprof's own shell waiting for it) is
// refused with one line instead of ending in "no samples".
#pragma once

#include <sys/types.h>

#include <string>

#include "util/result.h"

namespace callprof {

struct ProcessState {
  std::string comm;  // its name (escape before printing)
  char state = '?';  // R, S, D, T (stopped), t (traced), Z (zombie), ...
  bool kernel_thread = false;
  pid_t parent = 0;
};

// Parses /proc/PID/stat ("pid (comm) state ppid ... flags ..."); comm may hold spaces
// and parentheses, so it ends at the last ')'.
Result<ProcessState> parse_proc_stat(const std::string& text);

// Ok when `pid` can be sampled; an error when it is a kernel thread, stopped, traced, a
// zombie, callprof itself or one of its ancestors (which wait for callprof). A process
// that /proc does not show is left to the attach itself to report.
Status check_attachable(pid_t pid);

// Whether process `pid` still runs (exists, and is not a zombie).
bool process_alive(pid_t pid);

// Whether thread `tid` of process `pid` still exists (/proc/PID/task/TID).
bool thread_alive(pid_t pid, pid_t tid);

}  // namespace callprof

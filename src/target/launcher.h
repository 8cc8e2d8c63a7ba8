// Launching the program to profile and waiting for it, so that its standard streams, exit
// status and death signal are exactly what they would be without callprof.
#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

#pragma once

namespace callprof {

struct LaunchSpec {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // set (or replace) in the child
  // Optional handshake (sampling): the child runs `in_child` after fork, before exec (false:
  // it exits 127); the parent runs `in_parent` right after fork, before waiting for exec.
  std::function<bool()> in_child;
  std::function<void(pid_t)> in_parent;
};

struct ExitStatus {
  bool signaled = false;
  int code = 0;    // exit code when !signaled
  int signal = 0;  // death signal when signaled
};

// Starts the program; an exec failure (not found, not executable) is reported here.
Result<pid_t> launch(const LaunchSpec& spec);
// Waits for the program (record/record_signals.h decides what signals to callprof do meanwhile).
Result<ExitStatus> wait_for_exit(pid_t pid);
// Ends this process the way the program ended: same exit code, or the same signal.
[[noreturn]] void exit_like(const ExitStatus& status);

}  // namespace callprof

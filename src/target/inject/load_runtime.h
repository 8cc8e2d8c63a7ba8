// Bringing callprof's runtime into a running process (attach --mode exact; docs/attach.md):
// a thread at a safe point is borrowed with ptrace, runs the loader's dlopen on the
// runtime's path and then callprof_attach on the settings file, and is given back exactly
// as it was. The other threads never stop.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "util/result.h"

namespace callprof::inject {

struct LoadedRuntime {
  pid_t borrowed_tid = 0;
  uint64_t pause_ns = 0;   // how long the borrowed thread was held
  uint64_t waited_ns = 0;  // how long it took to find a thread at a safe point
};

// `runtime` and `settings` are paths as the process sees them. Refuses, changing nothing,
// when no thread reaches a safe point within `timeout_ms`.
Result<LoadedRuntime> load_runtime(pid_t pid, const std::string& runtime, const std::string& settings, int timeout_ms);

}  // namespace callprof::inject

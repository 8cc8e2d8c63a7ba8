// Bringing callprof's runtime into a running process (attach --mode exact; docs/attach.md):
// a thread at a safe point is borrowed with ptrace, runs the loader's dlopen on the
// runtime's path and then callprof_attach on the settings file. Then every thread is
// stopped for a moment: the frames open on their stacks are listed for the runtime, the
// borrowed thread runs callprof_attach_begin, which points the program's hooks at the
// runtime, and all are given back exactly as they were.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"
#include "wire/attach_frames.h"

namespace callprof::inject {

struct LoadedRuntime {
  pid_t borrowed_tid = 0;
  uint64_t waited_ns = 0;  // how long it took to find a thread at a safe point
  uint64_t held_ns = 0;    // how long the borrowed thread was held
  uint64_t stop_ns = 0;    // how long every thread was stopped
  size_t stopped_threads = 0;
  size_t open_frames = 0;  // frames open at the attach, handed to the runtime
  size_t threads_with_open_frames = 0;
};

// The frames file load_runtime wrote (wire/attach_frames.h), each thread's outermost frame
// first; empty when it cannot be read whole. Beside it, FRAMES_PATH.times: the threads
// with frames, as the kernel counted their time when the window began (thread_times.h;
// a program with hooks only: a patched program's runtime meets every thread at once).
std::vector<wire::AttachFrame> read_attach_frames(const std::string& frames_path);

// `runtime`, `settings` and `frames_path` (written here) are paths as the process sees
// them. Refuses, changing nothing, when no thread reaches a safe point within `timeout_ms`.
Result<LoadedRuntime> load_runtime(pid_t pid, const std::string& runtime, const std::string& settings,
                                   const std::string& frames_path, int timeout_ms);

}  // namespace callprof::inject

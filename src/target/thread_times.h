// What the kernel says of a thread's time (/proc/PID/task/TID/schedstat: nanoseconds on a
// CPU, and waiting for one), for the threads that had frames open when an attached window
// began: read as it begins (the threads just let go) and as it ends, so that a thread the
// runtime never met (it called no hooked function in the window) still shows where it was
// and how much of the window it ran (docs/attach.md, "Frames open at the attach").
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace callprof {

struct ThreadTime {
  pid_t tid = 0;
  uint64_t on_cpu_ns = 0;
  uint64_t waiting_ns = 0;  // runnable, waiting for a CPU
};

// "ON_CPU WAITING SLICES" as schedstat prints it; nullopt when it does not read so.
std::optional<ThreadTime> parse_schedstat(pid_t tid, const std::string& text);
// Thread `tid` of process `pid` as it is now; nullopt when it is gone.
std::optional<ThreadTime> read_thread_time(pid_t pid, pid_t tid);
// Its name (/proc/PID/task/TID/comm, untrusted); "" when it is gone.
std::string read_thread_name(pid_t pid, pid_t tid);

// A file of them, a line "TID ON_CPU WAITING" each.
Status write_thread_times(const std::string& path, const std::vector<ThreadTime>& times);
// Lines that do not read as such are left out; no file, none.
std::vector<ThreadTime> read_thread_times(const std::string& path);

}  // namespace callprof

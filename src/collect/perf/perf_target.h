// What /proc and /sys say about a process to attach to: whether it lives, its threads, the
// files it has mapped executable, and the CPUs to open per-CPU events on.
#pragma once

#include <sys/types.h>

#include <vector>

#include "collect/perf/perf_records.h"
#include "util/result.h"

namespace callprof::perf {

// Ok when the process exists and has not exited; else "no process with PID N" or
// "process N has exited" (a zombie).
Status check_process(pid_t pid);
// Thread ids from /proc/PID/task (empty when the process is gone).
std::vector<pid_t> thread_ids(pid_t pid);
// Executable file mappings from /proc/PID/maps, as if MMAP2 had reported them at time 0.
std::vector<Mapping> read_mappings(pid_t pid);
// One Comm event per thread, with its current name.
std::vector<TaskEvent> read_threads(pid_t pid);
// Online CPUs from /sys/devices/system/cpu/online ("0-3,6").
std::vector<int> online_cpus();

}  // namespace callprof::perf

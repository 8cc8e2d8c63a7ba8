// Who belongs to whom: the process image a thread ran in, the thread that created it, and
// the process (or earlier image) a process came from. Recorded ids can repeat (a pid keeps
// its number across exec, tids are reused), so links are resolved by id *and* start time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/profile.h"

namespace callprof {

inline constexpr size_t kNoIndex = SIZE_MAX;

// Per thread: the index of its process record, the image of its pid that was running when
// the thread started (the latest one started by then, else the earliest); kNoIndex when
// the profile has no record of its pid.
std::vector<size_t> thread_processes(const Profile& profile);

// A process by host and pid (pids repeat across the hosts of merged profiles).
using HostPid = std::pair<std::string, uint32_t>;

// The same for one thread at a time (threads taken as a profile is read, before the
// profile has them all): the processes are indexed once.
class ProcessLookup {
 public:
  explicit ProcessLookup(const Profile& profile);
  size_t of(const Thread& thread) const;

 private:
  std::map<HostPid, std::vector<size_t>> by_pid_;  // (host, pid) -> its images
  std::vector<int64_t> start_;                     // by process index: no reference to the profile is kept
};

// Per thread: the index of the thread that created it, a thread of the same process image
// with tid creator_tid (the latest started by then when the tid repeats); kNoIndex for
// none. A thread is never its own creator, but links may still form cycles.
std::vector<size_t> thread_creators(const Profile& profile);

// Per process: image k > 0 comes from the latest earlier image of its pid; image 0 from the
// image of its ppid that was running when it started; kNoIndex for none.
std::vector<size_t> process_parents(const Profile& profile);

}  // namespace callprof

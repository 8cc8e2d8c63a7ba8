// System calls whose caller an exact-mode thread told the probe (record --syscalls in exact
// mode; wire/syscall_context.h): summed per thread, node and call as they arrive, and hung
// under those very nodes once the runtime's dumps are built — no stack is unwound, so it
// works the same on code without frame pointers. Calls made before a thread's first
// instrumented call (or in a program without hooks) carry no caller and take the stack way.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collect/runtime/profile_builder.h"
#include "collect/syscalls/syscall_tracer.h"
#include "model/profile.h"

namespace callprof::record {

class ExactCallerCalls {
 public:
  // One completed call made from `caller`: the one the thread announced (`e.context`), or
  // none ({0, 0}) in an attached window, where no stack is unwound: the call was made before
  // the thread's first hook, inside the innermost frame it had open at the attach, if any.
  void add(const syscalls::SyscallEvent& e, syscalls::ExactCaller caller, std::string_view name, uint64_t duration_ns,
           int error);
  // A process image replaced its code: the node ids of its threads start again.
  void exec(uint32_t pid) { ++images_[pid]; }

  // Hangs every call under its node in `exact`, each thread's per-call statistics merged
  // into the thread's (ThreadNodes::placed). A call whose node is not in the dump any more
  // (pruned, the id given to another function) hangs at the thread's root; one whose thread
  // wrote no dump is lost. Both counts go to meta.syscalls.
  void attach(Profile& exact, const std::vector<ThreadNodes>& nodes) const;

 private:
  struct ThreadKey {
    uint32_t pid, tid, image;
    auto operator<=>(const ThreadKey&) const = default;
  };
  struct Site {  // a call of one system call from one node
    uint32_t node;
    uint32_t nr;
    uint64_t fn;
    bool operator==(const Site&) const = default;
  };
  struct SiteHash {
    size_t operator()(const Site& s) const {
      return std::hash<uint64_t>()(s.fn * 31 + (uint64_t(s.node) << 10) + s.nr);
    }
  };
  struct ThreadCalls {
    int64_t first_ns = INT64_MAX;  // the image that was running then is the one
    std::unordered_map<Site, SyscallSums, SiteHash> sites;
    std::map<uint32_t, SyscallStats> stats;  // by call number
  };

  std::map<ThreadKey, ThreadCalls> threads_;
  std::unordered_map<uint32_t, uint32_t> images_;  // pid -> execs seen
};

}  // namespace callprof::record

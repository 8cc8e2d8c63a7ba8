#include "target/inject/stopped_process.h"

#include <algorithm>
#include <set>

namespace callprof::inject {

Result<StoppedProcess> StoppedProcess::stop(pid_t pid, pid_t held, int timeout_ms) {
  StoppedProcess out;
  std::set<pid_t> seen{held};
  for (;;) {
    std::vector<PtraceThread> asked;
    for (pid_t tid : threads_of(pid)) {
      if (!seen.insert(tid).second) continue;
      auto t = PtraceThread::begin_seize(pid, tid);
      if (t) asked.push_back(std::move(*t));  // else it ended before it could be seized
    }
    if (asked.empty()) return out;  // stopped threads create none: the list is whole
    for (PtraceThread& t : asked) {
      Status s = t.finish_seize(timeout_ms);
      if (!s && !t.ended()) return make_error("cannot stop thread " + std::to_string(t.tid()) + ": " + s.error().message);
      if (!t.ended()) out.threads_.push_back(std::move(t));
    }
  }
}

}  // namespace callprof::inject

#include "target/inject/stopped_process.h"

#include <sys/wait.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>

namespace callprof::inject {
namespace {

uint64_t now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000 + uint64_t(t.tv_nsec) / 1000000;
}

// Waits until every thread of `asked` is in its interrupt's stop, in whatever order they
// stop: a wait per thread in turn would sleep for each thread not yet stopped. Threads
// that end meanwhile are no longer held (ended()).
Status wait_all(std::vector<PtraceThread>& asked, int timeout_ms) {
  std::map<pid_t, size_t> waiting;
  for (size_t i = 0; i < asked.size(); ++i) waiting[asked[i].tid()] = i;
  const uint64_t until = now_ms() + uint64_t(timeout_ms);
  while (!waiting.empty()) {
    int status = 0;
    const pid_t got = waitpid(-1, &status, __WALL | WNOHANG);
    if (got > 0) {
      auto it = waiting.find(got);
      if (it == waiting.end()) continue;  // callprof traces nothing else while it attaches
      PtraceThread& t = asked[it->second];
      auto stopped = t.seize_step(status);

      if (!stopped && !t.ended())
        return make_error("cannot stop thread " + std::to_string(got) + ": " + stopped.error().message);
      if (!stopped || *stopped) waiting.erase(it);
      continue;
    }
    if (got < 0 && errno != EINTR)
      return make_error(std::string("cannot wait for the threads: ") + std::strerror(errno));
    if (now_ms() >= until)
      return make_error("thread " + std::to_string(waiting.begin()->first) + " did not stop within " +
                        std::to_string(timeout_ms) + " ms");
    const timespec pause{0, 20000};  // 20 us
    nanosleep(&pause, nullptr);
  }
  return Ok{};
}

}  // namespace

Result<StoppedProcess> StoppedProcess::stop(pid_t pid, pid_t held, int timeout_ms) {
  StoppedProcess out;
  std::set<pid_t> seen{held};
  for (;;) {
    std::vector<PtraceThread> asked;
    for (pid_t tid : threads_of(pid)) {
      if (!seen.insert(tid).second) continue;
      auto t = PtraceThread::begin_seize(pid, tid, false);  // never changed: registers alone
      if (t) asked.push_back(std::move(*t));                // else it ended before it could be seized
    }
    if (asked.empty()) return out;  // stopped threads create none: the list is whole
    if (Status s = wait_all(asked, timeout_ms); !s) return s.error();
    for (PtraceThread& t : asked)
      if (!t.ended()) out.threads_.push_back(std::move(t));
  }
}

}  // namespace callprof::inject

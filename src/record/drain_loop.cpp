#include "record/drain_loop.h"

#include <time.h>

#include "collect/perf/ordered_sink.h"

namespace callprof::record {
namespace {

constexpr uint64_t kWriteSlackNs = 1'000'000;

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

}  // namespace

void drain(perf::PerfSession& session, perf::RecordSink& sink, std::span<SideSource* const> sides,
           const std::function<bool()>& stop) {
  perf::OrderedSink ordered(sink);
  // The session's wait wakes on one more descriptor; a side source that has none (or a
  // second one) is polled every 20 ms, often enough for rings of a few MiB.
  const int wake = sides.empty() ? -1 : sides.front()->wake_fd();
  const int timeout_ms = sides.empty() ? 100 : 20;
  // Every record stamped before the wait began is in its ring when the rings are drained
  // after it (1 ms of slack for the kernel writing it): those can go in order.
  uint64_t safe_ns = monotonic_ns() - kWriteSlackNs;
  while (session.poll(ordered, timeout_ms, wake)) {
    ordered.flush(safe_ns);
    safe_ns = monotonic_ns() - kWriteSlackNs;
    for (SideSource* s : sides) s->poll();
    if (stop()) break;
  }
  session.detach(ordered);
  ordered.flush();
  for (SideSource* s : sides) s->finish();
}

}  // namespace callprof::record

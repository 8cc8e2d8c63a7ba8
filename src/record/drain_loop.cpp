#include "record/drain_loop.h"

#include "collect/perf/ordered_sink.h"
#include "util/clock.h"

namespace callprof::record {
namespace {

constexpr uint64_t kWriteSlackNs = 1'000'000;

}  // namespace

void drain(perf::PerfSession& session, perf::RecordSink& sink, std::span<SideSource* const> sides,
           const std::function<bool()>& stop) {
  perf::OrderedSink ordered(sink);
  // The session's wait wakes on one more descriptor, the first side source's that has one;
  // the others are polled every 20 ms, often enough for rings of a few MiB.
  int wake = -1;
  for (SideSource* s : sides)
    if (wake < 0) wake = s->wake_fd();
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

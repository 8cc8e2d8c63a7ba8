#include "record/drain_loop.h"

#include "collect/sampling/ordered_sink.h"

namespace callprof::record {

void drain(sampling::PerfSession& session, sampling::RecordSink& sink, std::span<SideSource* const> sides,
           const std::function<bool()>& stop) {
  sampling::OrderedSink ordered(sink);
  // The session's wait wakes on one more descriptor; a side source that has none (or a
  // second one) is polled every 20 ms, often enough for rings of a few MiB.
  const int wake = sides.empty() ? -1 : sides.front()->wake_fd();
  const int timeout_ms = sides.empty() ? 100 : 20;
  while (session.poll(ordered, timeout_ms, wake)) {
    ordered.flush();
    for (SideSource* s : sides) s->poll();
    if (stop()) break;
  }
  session.detach(ordered);
  ordered.flush();
  for (SideSource* s : sides) s->finish();
}

}  // namespace callprof::record

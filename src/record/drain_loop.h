// The one drain loop of a recording: the perf session's per-CPU rings (samples, side-band
// records, and probe hits) go in time order to one RecordSink, and every side source (the
// eBPF system-call tracer, probe mode's budget) is polled between rounds, so the mappings its
// stacks need have arrived first.
#pragma once

#include <functional>
#include <span>

#include "collect/perf/perf_decode.h"
#include "collect/perf/perf_session.h"

namespace callprof::record {

// A source with its own ring, drained between the perf session's rounds; it feeds the
// consumer it was built with.
class SideSource {
 public:
  virtual ~SideSource() = default;
  virtual int wake_fd() const = 0;  // readable when the source wants its reader, or -1
  virtual void poll() = 0;          // hands over what it holds now (does not wait)
  virtual void finish() = 0;        // hands over everything left, once the targets ended or were detached
};

// Drains until the target process exits or `stop()` says so, then detaches the session and
// delivers everything left. Does not reap a launched target.
void drain(perf::PerfSession& session, perf::RecordSink& sink, std::span<SideSource* const> sides,
           const std::function<bool()>& stop);

}  // namespace callprof::record

// Launching a program under a perf session: the child is held before exec by a gate
// (collect/perf/perf_launch_gate.h) until the events are open on it and the other sources
// watch it (the system-call tracer), so that nothing it does escapes them.
#pragma once

#include <sys/types.h>

#include <functional>

#include "collect/perf/perf_session.h"
#include "target/launcher.h"

namespace callprof::record {

struct ObservedLaunch {
  pid_t pid;
  perf::PerfSession session;
};

// `watch`: called with the child's pid once the session is open, before it may exec; an
// error abandons the launch.
Result<ObservedLaunch> launch_observed(LaunchSpec spec, const perf::SamplingOptions& options,
                                       const std::function<Status(pid_t)>& watch);

}  // namespace callprof::record

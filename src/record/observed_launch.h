// Launching a program under a perf session: the child is held before exec by a gate
// (collect/perf/perf_launch_gate.h) until the events (and the system-call tracer) are
// open on it, so that nothing it does escapes them.
#pragma once

#include <sys/types.h>

#include "collect/perf/perf_session.h"
#include "record/syscall_tracing.h"
#include "target/launcher.h"

namespace callprof::record {

struct ObservedLaunch {
  pid_t pid;
  perf::PerfSession session;
};

// `tracing` may be null.
Result<ObservedLaunch> launch_observed(LaunchSpec spec, const perf::SamplingOptions& options, SyscallTracing* tracing);

}  // namespace callprof::record

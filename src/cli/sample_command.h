// Sampling mode and system calls traced alone: `record --mode sample|syscall` (a launched
// program) and `attach PID`; also the launch helpers exact mode uses for --syscalls.
#pragma once

#include <sys/types.h>

#include <string>

#include "cli/record_options.h"
#include "cli/syscall_tracing.h"
#include "collect/sampling/perf_session.h"
#include "collect/sampling/sample_collector.h"
#include "target/executable.h"
#include "target/launcher.h"

namespace callprof::cli {

// `mode`: "sample", or "syscall" (no samples: only the system calls of --syscalls).
int record_sampled(const RecordArgs& args, const ExecutableInfo& exe, const std::string& mode);

// A launched program held before exec until a perf session (and the tracer) were open on it.
struct ObservedLaunch {
  pid_t pid;
  sampling::PerfSession session;
};
Result<ObservedLaunch> launch_observed(LaunchSpec spec, const sampling::SamplingOptions& options,
                                       SyscallTracing* tracing);
// Feeds the session's records and the traced calls to `collector` until the program exits
// (Ctrl-C goes to the program, not to us). Does not reap it.
// `sink`: where the session's records go, when not straight to `collector` (probe mode).
void observe_until_exit(ObservedLaunch& launched, SyscallTracing* tracing, sampling::SampleCollector& collector,
                        sampling::RecordSink* sink = nullptr);
// Probe mode (probe_command.cpp): `record --mode probe` and `attach --mode probe`.
int record_probed(const RecordArgs& args, const ExecutableInfo& exe);
struct AttachProbeArgs {
  pid_t pid;
  int64_t duration_ns;
  std::string output;
  bool quiet;
  SamplingArgs sampling;
  SyscallArgs syscalls;
  ProbeArgs probes;
};
int attach_probed(const AttachProbeArgs& args);
sampling::SamplingOptions session_options(const SamplingArgs& args);
// Sampling's drain loop for a running process, until Ctrl-C, the duration, or its exit.
void observe_attached(sampling::PerfSession& session, SyscallTracing* tracing, sampling::SampleCollector& collector,
                      sampling::RecordSink& sink, int64_t duration_ns);

}  // namespace callprof::cli

// perf_event_attr for a sampling session and perf_event_open with errors a user can act on.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <string>

#include "collect/perf/perf_decode.h"
#include "collect/perf/perf_options.h"
#include "util/result.h"

namespace callprof::perf {

enum class EventRole : uint8_t {
  Sampler,       // cpu-clock; also carries the side-band records (mmap, comm, task, switch)
  SwitchSampler  // off-CPU: context-switch software event, period 1, same stack capture
};

// on_exec: start disabled and let the kernel enable the event at the target's exec.
perf_event_attr make_attr(const SamplingOptions& options, EventRole role, bool on_exec);
// Probe mode: the uprobe defined as tracepoint `id` (uprobe_definitions.h), sampled at
// every hit with the session's sample layout.
perf_event_attr make_uprobe_attr(const SamplingOptions& options, uint64_t id, bool needs_stack, bool on_exec);
// The format every event of a session shares (switch ids are added as events are opened).
DecodeFormat decode_format(const SamplingOptions& options);

// perf_event_open(attr, pid, cpu) with close-on-exec. Falls back to MMAP2 without build ids
// on kernels older than 5.12. The error names `what` and, for permissions, perf_event_paranoid.
// *err receives errno on failure (ESRCH tells a thread that vanished while attaching).
Result<int> open_event(perf_event_attr& attr, pid_t pid, int cpu, const std::string& what, int* err = nullptr);
// The event id the kernel writes in PERF_SAMPLE_IDENTIFIER.
Result<uint64_t> event_id(int fd);

}  // namespace callprof::perf

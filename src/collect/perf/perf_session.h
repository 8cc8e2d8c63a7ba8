// A sampling session on one target process: perf events on every CPU for the target and
// (through `inherit`) every thread and child it creates, one ring per CPU, and the drain
// loop. See docs/sampling.md for the design.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "collect/perf/perf_decode.h"
#include "collect/perf/perf_options.h"
#include "collect/perf/perf_ring.h"
#include "collect/perf/uprobe_definitions.h"
#include "util/result.h"

namespace callprof::perf {

struct SessionStats {
  DecodeStats decode;            // records by kind, lost and malformed counts
  size_t events = 0;             // perf event descriptors open
  size_t rings = 0;              // one per online CPU
  size_t ring_bytes = 0;         // data area of each ring
  size_t threads_attached = 0;   // attach: threads found in /proc/PID/task
  size_t max_fill_bytes = 0;     // fullest a ring was when drained: headroom against loss
  uint64_t foreign_records = 0;  // records of forked children dropped (follow_children off)
};

class PerfSession {
 public:
  // A child forked by the launcher and held before exec (perf_launch_gate.h). Events are
  // enabled by the kernel at its exec; release the gate after this returns.
  static Result<PerfSession> open_launched(pid_t child, const SamplingOptions& options);
  // A running process: all its threads now; threads and children it creates later.
  static Result<PerfSession> attach(pid_t pid, const SamplingOptions& options);

  PerfSession(PerfSession&& other) noexcept;
  PerfSession& operator=(PerfSession&&) = delete;
  ~PerfSession();  // detaches; records still in the rings are discarded

  pid_t target() const { return target_; }
  // Attach only: what existed before the session (no MMAP2/COMM records exist for it).
  const std::vector<TaskEvent>& initial_threads() const { return initial_threads_; }
  const std::vector<Mapping>& initial_mappings() const { return initial_mappings_; }

  // Waits up to timeout_ms for a ring to fill a quarter or the target process to exit,
  // then drains every ring into sink. Returns false once the target has exited: all its
  // records have then been delivered (children that outlive it may still produce some).
  // `also_wake_on`: another descriptor whose readiness ends the wait (the syscall tracer's
  // ring), or -1.
  bool poll(RecordSink& sink, int timeout_ms, int also_wake_on = -1);
  // Stops sampling, delivers what the rings still hold, unmaps and closes everything. The
  // target keeps running untouched. Idempotent.
  void detach(RecordSink& sink);

  const SessionStats& stats() const { return stats_; }
  // Probe mode: the options' uprobe site each event id stands for, and the sites the kernel
  // refused (not an instruction it can probe): those are left out.
  const std::unordered_map<uint64_t, uint32_t>& uprobe_sites() const { return uprobe_sites_; }
  size_t refused_uprobes() const { return size_t(std::count(refused_.begin(), refused_.end(), true)); }
  // Removes these sites (indexes in the options' uprobes) from the running target: their
  // events close, and with the last one the kernel takes the breakpoints out of its code.
  // Their records already in the rings are still delivered.
  void remove_uprobes(const std::vector<uint32_t>& sites);
  const DecodeFormat& format() const { return format_; }

 private:
  PerfSession(pid_t target, const SamplingOptions& options);
  Status open_cpu_events(pid_t tid, size_t cpu_index, bool on_exec, const std::string& what, int* err = nullptr);
  Status open_pidfd(const std::string& what);
  Status open_uprobes(pid_t tid, size_t cpu_index, bool on_exec, const std::string& what, int* err);
  Status add_to_ring(int fd, size_t cpu_index, const std::string& what);
  void drain(RecordSink& sink);
  void close_all();

  pid_t target_ = -1;
  SamplingOptions options_;
  DecodeFormat format_;
  std::vector<int> cpus_;
  std::vector<int> fds_;         // every event
  std::vector<int> ring_fds_;    // per CPU: the event that owns the ring (-1 until opened)
  std::vector<PerfRing> rings_;  // per CPU
  int pidfd_ = -1;               // readable when the target process exits
  bool exited_ = false;
  std::vector<TaskEvent> initial_threads_;
  std::vector<Mapping> initial_mappings_;
  SessionStats stats_;
  UprobeDefinitions uprobe_definitions_;  // removed after close_all() closed their events
  std::unordered_map<uint64_t, uint32_t> uprobe_sites_;
  std::vector<bool> refused_;               // per site, once defined: the kernel cannot probe it
  std::vector<std::vector<int>> site_fds_;  // per site: its events (per CPU, and per thread when attached)
};

}  // namespace callprof::perf

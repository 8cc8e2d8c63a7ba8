// `--syscalls`: the eBPF tracer (src/collect/syscalls) as a side source of the drain loop,
// next to a perf session whose records say where each process's code is mapped. Each
// completed call goes into the same collector as the samples (SampleCollector::on_syscall),
// so it is unwound and symbolized like them and lands on a `[syscall] NAME` leaf of its path.
// In exact mode a call whose thread announced its shadow stack carries its caller instead,
// and goes to ExactCallerCalls (record/exact_callers.h) with no unwinding; so do exact
// mode's samples (-F), to ExactSamples, which the runtime's source places. Attached in exact
// mode every call goes there: one without its caller was made before its thread's first hook.
#pragma once

#include <sys/types.h>

#include <memory>

#include "collect/stacks/sample_collector.h"
#include "model/profile.h"
#include "record/drain_loop.h"
#include "record/exact_callers.h"
#include "record/exact_samples.h"
#include "record/options.h"
#include "record/reporter.h"
#include "record/source.h"
#include "util/result.h"

namespace callprof::syscalls {
class SyscallTracer;
}

namespace callprof::record {

// attach: the window whose calls (by their start) and samples count, [begin, end]
// (CLOCK_MONOTONIC); the tracer watches the process from before it opens.
struct TracingWindow {
  uint64_t begin_ns = 0, end_ns = UINT64_MAX;
  bool exact_attached = false;  // set_window was called: attach --mode exact
  uint64_t calls_outside = 0;   // calls left out
  bool holds(uint64_t t) const { return t >= begin_ns && t <= end_ns; }
};

class SyscallTracing final : public Source, public SideSource {
 public:
  // Loads the probe for the selection in `args` (nothing traced until add_process); the
  // calls go to `collector`. `sample_hz` > 0: exact mode's samples too (no selection needed).
  static Result<std::unique_ptr<SyscallTracing>> open(const SyscallArgs& args, bool follow_children,
                                                      stacks::SampleCollector& collector, uint32_t sample_hz,
                                                      Reporter& reporter);
  ~SyscallTracing() override;

  Status add_process(pid_t pid);
  Status watch(pid_t pid) override { return add_process(pid); }
  SideSource* side() override { return this; }
  // The selection's facts into the metadata; in exact mode, the calls with known callers
  // hung under their nodes, and what became of the samples.
  void contribute(Assembly& a) override;
  void poll() override;
  void finish() override;
  int wake_fd() const override;
  // The selection, stack mode and every counter (events, losses) into the metadata; with
  // samples, their facts too.
  void annotate(Metadata& meta) const;
  // The calls whose exact-mode caller the runtime told the probe.
  const ExactCallerCalls& exact_callers() const { return exact_callers_; }
  // The samples taken inside exact mode, by node (sample_hz).
  const ExactSamples& exact_samples() const { return exact_samples_; }
  // attach: only the calls that began and the samples taken in [begin, end] count.
  void set_window(uint64_t begin_ns, uint64_t end_ns) {
    window_.begin_ns = begin_ns, window_.end_ns = end_ns, window_.exact_attached = true;
  }
  uint64_t lost_events() const;  // records of any kind the full ring dropped

 private:
  SyscallTracing(std::unique_ptr<syscalls::SyscallTracer> tracer, const SyscallArgs& args,
                 stacks::SampleCollector& collector, uint32_t sample_hz, Reporter& reporter);
  void stamp_exact_samples(Assembly& a) const;

  std::unique_ptr<syscalls::SyscallTracer> tracer_;
  stacks::SampleCollector& collector_;
  SyscallArgs args_;
  uint32_t sample_hz_;
  Reporter& reporter_;
  ExactCallerCalls exact_callers_;
  ExactSamples exact_samples_;
  std::vector<uint64_t> chain_;  // scratch: the current event's user chain
  TracingWindow window_;
};

}  // namespace callprof::record

// Probe mode's part of a recording (docs/probes.md): which functions, decided before the
// target runs; their uprobe sites in the perf session's options; the cost of a hit,
// measured with those options; the collector that pairs hits into calls; and what the
// profile's metadata says about it all.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "collect/perf/perf_session.h"
#include "collect/probes/probe_collector.h"
#include "collect/probes/probe_plan.h"
#include "model/profile.h"
#include "record/drain_loop.h"
#include "record/options.h"
#include "record/reporter.h"
#include "target/executable.h"

namespace callprof::record {

class ProbeSource {
 public:
  // `modules`: the files the target runs code from, its executable first.
  static Result<ProbeSource> prepare(const RecordArgs& args, const std::vector<std::string>& modules,
                                     Reporter& reporter);

  // Adds the sites to the session's options (registers and a little stack at every hit,
  // rings big enough for bursts of hits) and measures a hit's cost with them. `threads`:
  // how many threads the events are opened for (attach), for the descriptor limit.
  void configure(perf::SamplingOptions& options, size_t threads, Reporter& reporter);
  // The drain loop's sink: hits become calls, every other record goes to `stacks`.
  perf::RecordSink& start(stacks::SampleCollector& stacks, const perf::PerfSession& session);
  // Between the drain loop's rounds: removes the probes of the functions past the budget
  // (--probe-budget) from the running program, saying which.
  void keep_budget(perf::PerfSession& session, Reporter& reporter);
  // Closes what is still open; before `stacks` builds the profile.
  void finish();
  void annotate(Profile& profile, const perf::PerfSession& session, Reporter& reporter) const;
  uint64_t calls() const { return collector_ ? collector_->counts().pairing.calls : 0; }

 private:
  ProbeArgs args_;
  bool compensate_ = true;
  probes::ProbePlan plan_;
  std::vector<probes::ProbeSite> sites_;
  probes::ProbeCosts costs_;
  std::unique_ptr<probes::ProbeCollector> collector_;
  uint64_t start_ns_ = 0;
  struct Stopped {
    uint32_t function;
    StoppedProbe facts;  // its calls are known at annotate()
  };
  std::vector<Stopped> stopped_;
};

// The drain loop's side source that keeps probe mode within its budget between rounds.
class ProbeBudgetKeeper final : public SideSource {
 public:
  ProbeBudgetKeeper(ProbeSource& probes, perf::PerfSession& session, Reporter& reporter)
      : probes_(probes), session_(session), reporter_(reporter) {}
  int wake_fd() const override { return -1; }
  void poll() override { probes_.keep_budget(session_, reporter_); }
  void finish() override {}

 private:
  ProbeSource& probes_;
  perf::PerfSession& session_;
  Reporter& reporter_;
};

// The files a launched program runs code from (its executable and shared libraries), and
// those mapped executable in a running process (its executable first).
std::vector<std::string> launched_modules(const ExecutableInfo& exe);
std::vector<std::string> attached_modules(pid_t pid);

}  // namespace callprof::record

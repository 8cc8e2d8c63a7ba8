// Probe mode's source (docs/probes.md): which functions, decided before the target runs;
// their uprobe sites in the perf session's options; the cost of a hit, measured with those
// options; the collector that pairs hits into calls (in the stack source's tree); the
// budget kept while the target runs; and what the profile's metadata says about it all.
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
#include "record/source.h"
#include "target/executable.h"

namespace callprof::record {

class StackSource;

class ProbeSource final : public Source, public SideSource {
 public:
  // `modules`: the files the target runs code from, its executable first.
  static Result<std::unique_ptr<ProbeSource>> prepare(const RecordArgs& args, const std::vector<std::string>& modules,
                                                      Reporter& reporter);

  // The perf session and collector the hits come through.
  void use(StackSource& stacks) { stacks_ = &stacks; }
  // Adds the sites to the session's options (registers and a little stack at every hit,
  // rings big enough for bursts of hits) and measures a hit's cost with them. `threads`:
  // how many threads the events are opened for (attach), for the descriptor limit.
  void configure(perf::SamplingOptions& options, size_t threads);
  // The drain loop's sink: hits become calls, every other record goes to the collector.
  perf::RecordSink& start();

  // --probe-budget: between the drain loop's rounds, removes the probes of the functions
  // past the budget from the running program, saying which.
  SideSource* side() override { return args_.budget_percent > 0 ? this : nullptr; }
  int wake_fd() const override { return -1; }
  void poll() override { keep_budget(); }
  void finish() override {}

  // Closes the calls still open, before the collector builds the profile.
  void target_ended() override;
  void contribute(Assembly& a) override;
  std::string written(const Profile& p, const std::string& path, bool final) const override;

 private:
  explicit ProbeSource(Reporter& reporter) : reporter_(reporter) {}
  void keep_budget();

  Reporter& reporter_;
  StackSource* stacks_ = nullptr;
  ProbeArgs args_;
  bool compensate_ = true;
  probes::ProbePlan plan_;
  std::vector<probes::ProbeSite> sites_;
  probes::ProbeCosts costs_;
  std::unique_ptr<probes::ProbeCollector> collector_;
  uint64_t start_ns_ = 0;
  struct Stopped {
    uint32_t function;
    StoppedProbe facts;  // its calls are known at contribute()
  };
  std::vector<Stopped> stopped_;
};

// The files a launched program runs code from (its executable and shared libraries), and
// those mapped executable in a running process (its executable first).
std::vector<std::string> launched_modules(const ExecutableInfo& exe);
std::vector<std::string> attached_modules(pid_t pid);

}  // namespace callprof::record

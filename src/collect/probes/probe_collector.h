// Probe mode's consumer of a perf session's records: hits of the uprobe sites become calls
// (probe_pairing.h) on paths — the entry's callers as the stack engine unwinds them, then
// the probed calls nested in one another — and every other record (mappings, tasks,
// samples when sampling too) goes on to the sampling collector, which builds the trees.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "collect/perf/perf_options.h"
#include "collect/probes/probe_budget.h"
#include "collect/probes/probe_calibration.h"
#include "collect/probes/probe_pairing.h"
#include "collect/probes/probe_sites.h"
#include "collect/stacks/sample_collector.h"

namespace callprof::probes {

// What a uprobe site is: the entry, an exit (ret or tail jump) or the return probe of one
// probed function, and whether the kernel emulates its instruction (cheaper hits).
struct ProbeSite {
  enum class Kind : uint8_t { Entry, Exit, Return };
  uint32_t function = 0;
  Kind kind = Kind::Entry;
  bool emulated = false;
};

// The uprobe sites of `functions` (each function's entry, then its exits or its return
// probe), and in `sites` what each one is, index for index.
std::vector<perf::UprobeSite> uprobe_sites(const std::vector<ProbeFunction>& functions, std::vector<ProbeSite>& sites);

class ProbeCollector : public perf::RecordSink, private CallSink {
 public:
  ProbeCollector(stacks::SampleCollector& stacks, std::vector<ProbeFunction> functions, std::vector<ProbeSite> sites);

  // What each kind of hit costs; `compensate`: subtract it from self times.
  void set_costs(const ProbeCosts& costs, bool compensate);
  // record --probe-budget: the hits' estimated cost is watched per window (probe_budget.h).
  void set_budget(double percent) { budget_ = ProbeBudget(percent); }
  // What the budget chose to stop since the last call; the caller removes those probes,
  // then says when with stop_function().
  std::vector<ProbeBudget::Stop> take_stops() { return budget_.take_stops(); }
  // The probes of `function` are being removed from at_ns (CLOCK_MONOTONIC, as the hits):
  // its hits from then on are left out (its entry and return probes do not go at the same
  // instant), and its frames still open close at that time once every earlier hit is in.
  void stop_function(uint32_t function, uint64_t at_ns);
  const ProbeFunction& function(uint32_t i) const { return functions_[i]; }
  uint64_t calls_of(uint32_t function) const { return function_calls_[function]; }
  bool compensated() const { return compensated_; }
  // The hits' estimated cost, from the kind of each (0 when not measured).
  uint64_t probe_time_ns() const { return probe_time_ns_; }
  // The session's event ids of each site (PerfSession::uprobe_sites()).
  void set_event_sites(const std::unordered_map<uint64_t, uint32_t>& ids) { event_sites_ = ids; }

  void on_sample(perf::Sample&& sample) override;
  void on_mapping(perf::Mapping&& mapping) override { stacks_.on_mapping(std::move(mapping)); }
  void on_task(perf::TaskEvent&& task) override;
  void on_switch(const perf::SwitchEvent& event) override { stacks_.on_switch(event); }
  void on_lost(const perf::LostEvent& event, perf::LostKind kind) override { stacks_.on_lost(event, kind); }

  // Closes what is still open at end_ns and hands every path's sums to the stack engine.
  void finish(uint64_t end_ns);

  struct Counts {
    // exits: return probes' hits too; an entry that is also the exit (one probe on a tail
    // jump) counts as an entry only
    uint64_t entries = 0, exits = 0;
    uint64_t emulated = 0;           // hits on instructions the kernel emulates
    uint64_t returns = 0;            // hits of return probes
    uint64_t without_registers = 0;  // hits that could not be paired (no stack pointer)
    // Calls whose self time, less the probes' part, was shorter than what their own hits
    // cost: not measurable; their self time is given as 0 (known at finish()).
    uint64_t unmeasurable_calls = 0;
    uint64_t truncated_calls = 0;  // entry stack reached no root (known once the profile is built)
    ProbePairing::Counts pairing;
  };
  Counts counts() const;
  // The functions with unmeasurable calls (known at finish()), by name.
  std::vector<std::string> unmeasurable_functions() const;

 private:
  struct Path {
    uint32_t pid, tid, image, function;
    uint32_t first, count;                          // in pcs_, outermost first
    uint64_t calls = 0, self_ns = 0, probe_ns = 0;  // self_ns raw; probe_ns: the probes' part of it
    uint64_t hits_ns = 0;                           // the calls' own hits' cost (CallTimes)
    uint64_t min_ns = UINT64_MAX, max_ns = 0;       // of one call, less its probes' part
  };
  void on_call(uint32_t tid, const OpenFrame& frame, const CallTimes& times) override;
  void on_entry(const perf::Sample& s, const ProbeSite& site);
  void restore_return_addresses(perf::Sample& s) const;
  // The path of `parent` (kNoParent: none) followed by scratch_.
  static constexpr uint32_t kNoParent = UINT32_MAX;
  uint32_t intern(uint32_t pid, uint32_t tid, uint32_t image, uint32_t function, uint32_t parent);
  void close_stopped(uint64_t before_ns);
  void adopt_frames(uint32_t parent_tid, uint32_t child_pid, uint32_t child_tid);

  stacks::SampleCollector& stacks_;
  std::vector<ProbeFunction> functions_;
  std::vector<ProbeSite> sites_;
  std::unordered_map<uint64_t, uint32_t> event_sites_;
  ProbePairing pairing_;
  std::vector<Path> paths_;
  std::vector<uint64_t> pcs_;
  std::unordered_map<std::string, uint32_t> path_index_;
  std::vector<uint64_t> scratch_;
  std::string key_;
  Counts counts_;
  bool compensated_ = false;
  std::vector<uint64_t> site_ns_;  // per site: what a hit costs
  uint64_t probe_time_ns_ = 0;
  std::unordered_map<uint32_t, uint64_t> exit_times_;  // threads that ended: their frames close there
  ProbeBudget budget_{0};
  std::vector<std::pair<uint32_t, uint64_t>> stopping_;  // function, when its probes were removed
  std::vector<uint64_t> stopped_at_;                     // per function: UINT64_MAX while probed
  std::vector<uint64_t> function_calls_;                 // calls closed, per function
  std::vector<bool> unmeasurable_;                       // per function (finish())
};

}  // namespace callprof::probes

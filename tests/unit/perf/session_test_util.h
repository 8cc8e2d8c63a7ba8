// Helpers for session tests: launching the busy child behind a LaunchGate, collecting records.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collect/perf/perf_launch_gate.h"
#include "collect/perf/perf_session.h"

namespace callprof::perf::test {

struct Collected : RecordSink {
  std::vector<Sample> samples;
  std::vector<Mapping> maps;
  std::vector<TaskEvent> tasks;
  std::vector<SwitchEvent> switches;
  uint64_t lost = 0;
  void on_sample(Sample&& s) override { samples.push_back(std::move(s)); }
  void on_mapping(Mapping&& m) override { maps.push_back(std::move(m)); }
  void on_task(TaskEvent&& e) override { tasks.push_back(std::move(e)); }
  void on_switch(const SwitchEvent& e) override { switches.push_back(e); }
  void on_lost(const LostEvent& e, LostKind) override { lost += e.lost; }
  std::map<uint32_t, size_t> samples_per_tid() const;
};

// Empty when this machine cannot sample with cpu-clock (the reason otherwise).
std::optional<std::string> cannot_sample();

struct Launched {
  pid_t pid = -1;
  int out = -1;  // the child's stdout
  uint64_t spin_here = 0;
};

// Forks the busy child with `args`, opens a session on it before exec, releases it, and
// reads the spin_here address it prints. Fails the test (returns nullopt) on error.
std::optional<Launched> launch_busy_child(const std::vector<std::string>& args, const SamplingOptions& options,
                                          std::optional<PerfSession>& session, std::string& error);
// Starts the busy child without a session.
Launched start_busy_child(const std::vector<std::string>& args);
// Polls until the session reports the target's exit (or timeout), reaps it, detaches.
int run_to_exit(PerfSession& session, pid_t pid, Collected& sink, int timeout_ms = 20000);
// /proc/PID/stat state letter, '?' when gone.
char process_state(pid_t pid);
// The CPU time its threads have used (utime + stime of /proc/PID/stat), in ms; -1 when gone.
double process_cpu_ms(pid_t pid);

}  // namespace callprof::perf::test

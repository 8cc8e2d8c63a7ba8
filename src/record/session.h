// One recording, whatever its mode: decides everything it can before the target runs
// (mode, options, target, output), launches or attaches, starts the sources the mode
// needs, runs one drain loop, watches snapshots, builds the profile, stamps its metadata
// once and writes it atomically. docs/design.md ("Recording") describes the design.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "collect/perf/perf_session.h"
#include "collect/stacks/sample_collector.h"
#include "model/profile.h"
#include "record/exact_source.h"
#include "record/options.h"
#include "record/probe_source.h"
#include "record/record_signals.h"
#include "record/reporter.h"
#include "record/syscall_tracing.h"
#include "target/executable.h"
#include "target/launcher.h"

namespace callprof::record {

// How a recording ended. A recording with no data still writes a profile, whose
// metadata says why (Metadata::warnings); not written means callprof failed, which it
// said through Reporter::error.
struct Outcome {
  std::optional<ExitStatus> program;  // how a launched program ended (none when attached)
  bool written = false;               // the final profile is at the output path
};

class RecordingSession {
 public:
  // Everything decided before the target runs; nothing is started. An error is one line.
  static Result<std::unique_ptr<RecordingSession>> prepare(const RecordArgs& args, Reporter& reporter);
  ~RecordingSession();

  Mode mode() const { return mode_; }
  // Runs the recording to its end. An error: the target could not be started or attached
  // (nothing was recorded; the program did not run, or exited 127 before its exec).
  Result<Outcome> run();

 private:
  RecordingSession(const RecordArgs& args, Reporter& reporter) : args_(args), reporter_(reporter) {}
  Status preflight();
  Status start();
  Status start_exact();
  Status start_launched();
  Status start_attached();
  Status start_exact_attached();
  Status inspect_attached();
  Result<ExecutableInfo> attached_executable() const;
  Mode attach_mode() const;
  void wait_attached();
  Status open_tracing(bool follow_children);
  void make_collector();
  void observe(Outcome& out);
  void wait_for_descendants();
  void drain_perf();
  void build_and_write(Outcome& out);
  std::optional<Profile> build_exact(bool final, size_t& from_snapshots);  // none: no snapshot yet
  Profile build_sampled();
  void stamp_exact_samples(BuildResult& built) const;
  void stamp(Profile& p, bool final) const;
  bool write(const Profile& p, bool final);
  void write_snapshot();
  void say_written(const Profile& p, bool final, size_t from_snapshots) const;
  perf::SamplingOptions session_options(size_t threads);
  void choose_unwinding();
  std::string command_line() const;

  RecordArgs args_;
  Reporter& reporter_;
  RecordSignals signals_;  // before the sources: handled until they are gone
  Mode mode_ = Mode::Exact;
  ExecutableInfo exe_;                                  // launched, or attached in exact mode
  std::optional<ExactSource> exact_;                    // exact mode
  std::unique_ptr<stacks::SampleCollector> collector_;  // the perf session's consumer
  std::unique_ptr<SyscallTracing> tracing_;             // --syscalls
  std::optional<ProbeSource> probes_;                   // probe mode
  std::optional<perf::PerfSession> perf_;               // sample, syscall, exact with --syscalls
  pid_t pid_ = 0;                                       // launched program
  std::vector<std::string> unfollowed_;                 // said at the end: processes whose data is missing
  int64_t start_realtime_ns_ = 0;
  int64_t start_steady_ns_ = 0;
  uint64_t build_ns_ = 0;             // the last exact profile's symbolizing and building
  inject::LoadedRuntime attached_{};  // attach --mode exact: what the attach found
  std::string comm_;                  // attach: the process's name
  std::mutex write_mutex_;            // snapshots (watcher thread) and the final write
  bool kept_previous_ = false;
  std::string unwind_reason_;  // --call-graph auto's choice, said in the profile
};

}  // namespace callprof::record

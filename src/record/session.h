// One recording, whatever its mode: decides everything it can before the target runs
// (mode, options, target, output), opens the sources the mode and options need
// (record/source.h) and holds them as a list, launches or attaches, runs one drain loop,
// watches snapshots, lets the sources build the profile in turn, stamps its metadata once
// and writes it atomically. docs/design.md ("Recording") describes the design.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "collect/perf/perf_session.h"
#include "model/profile.h"
#include "record/exact_source.h"
#include "record/options.h"
#include "record/probe_source.h"
#include "record/record_signals.h"
#include "record/reporter.h"
#include "record/source.h"
#include "record/stack_source.h"
#include "record/syscall_tracing.h"
#include "target/executable.h"
#include "target/inject/attach_lock.h"
#include "target/inject/hook_slots.h"
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
  Status open_sources();
  Status start();
  Status launch_target();
  Status attach_target();
  Status attach_exact();
  void say_starting() const;
  Status watch(pid_t pid);
  Status inspect_attached();
  Result<ExecutableInfo> attached_executable() const;
  Mode attach_mode() const;
  void wait_attached();
  void observe(Outcome& out);
  void drain_perf();
  std::vector<SideSource*> sides() const;
  void build_and_write(Outcome& out);
  std::optional<Profile> build(bool final);  // none: no snapshot yet
  void stamp(Profile& p, bool final) const;
  bool write(const Profile& p, bool final);
  void write_snapshot();
  void say_written(const Profile& p, bool final) const;
  perf::SamplingOptions session_options(size_t threads);
  void choose_unwinding();
  std::string command_line() const;

  RecordArgs args_;
  Reporter& reporter_;
  RecordSignals signals_;  // before the sources: handled until they are gone
  Mode mode_ = Mode::Exact;
  ExecutableInfo exe_;  // launched, or attached in exact mode
  // A launched program built to be attached: the GOT slots of it and its start-up libraries.
  std::vector<inject::ModuleSlots> start_up_slots_;
  // The sources (record/source.h), each opened when the mode or options ask for it;
  // `sources_` lists those opened in the order they build the profile.
  std::unique_ptr<ExactSource> exact_;       // exact mode: the runtime's dumps
  std::unique_ptr<StackSource> stacks_;      // the perf session and its collector
  std::unique_ptr<SyscallTracing> tracing_;  // --syscalls, and exact mode's -F
  std::unique_ptr<ProbeSource> probes_;      // probe mode
  std::vector<Source*> sources_;
  pid_t pid_ = 0;  // launched program
  int64_t start_realtime_ns_ = 0;
  int64_t start_steady_ns_ = 0;
  std::string comm_;                // attach: the process's name
  inject::AttachLock attach_lock_;  // attach: held from the first look at the process till the injection's end
  std::mutex write_mutex_;          // snapshots (watcher thread) and the final write
  bool kept_previous_ = false;
  std::string unwind_reason_;  // --call-graph auto's choice, said in the profile
};

}  // namespace callprof::record

// Exact mode's source: the -finstrument-functions runtime preloaded into the launched
// program (or loaded into an attached one), which aggregates its call trees itself and
// dumps them (and its snapshots) into a private directory; this reads them back into one
// profile, the first of its recording's sources: the others hang into its trees.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "collect/runtime/profile_builder.h"
#include "collect/runtime/unmet_threads.h"
#include "record/calibration_cache.h"
#include "record/exact_samples.h"
#include "record/options.h"
#include "record/reporter.h"
#include "record/source.h"
#include "target/executable.h"
#include "target/inject/attach_lock.h"
#include "target/inject/hook_slots.h"
#include "target/inject/load_runtime.h"
#include "target/launcher.h"
#include "target/temp_dir.h"

namespace callprof::record {

class ExactSource final : public Source {
 public:
  // Finds the runtime, creates the directory and writes the function plan: all before the
  // program starts, so a bad filter or a missing runtime is said first.
  // `start_up`: for a program whose entries the runtime patches, the slots of it and its
  // start-up libraries (inject::start_up_slots); empty otherwise.
  static Result<std::unique_ptr<ExactSource>> prepare(const RecordArgs& args, const ExecutableInfo& exe,
                                                      const std::vector<inject::ModuleSlots>& start_up,
                                                      Reporter& reporter);

  // The variables the launched program gets (output directory, settings, LD_PRELOAD).
  void add_environment(LaunchSpec& spec) const override;
  // -F: the samples taken inside the program's threads, placed under their nodes at the end.
  void take_samples_from(const ExactSamples& samples) { samples_ = &samples; }
  // Launched: processes the program left running write their data when they end; waits
  // for them (Ctrl-C stops waiting), and says whose data is missing.
  void target_ended() override;
  // The runtime's dumps, or its latest snapshots, as the profile's trees, with exact
  // mode's facts (the options it ran with, what the attach found).
  void contribute(Assembly& a) override;
  std::string written(const Profile& p, const std::string& path, bool final) const override;
  // When the hooks took half the threads' time or more, a line that says so.
  std::vector<std::string> details() const override;
  bool wants_snapshots() const;
  // A fingerprint of the dumps and snapshots written so far (changes when one is written).
  std::string snapshot_state() const;

  struct Collected {
    BuildResult built;
    std::vector<std::string> warnings;   // damaged or unfinished dumps
    size_t from_snapshots = 0;           // images whose data ends at their last snapshot
    bool empty = true;                   // no image wrote anything
    size_t threads_without_hooks = 0;    // attached: threads added with their open frames (unmet_threads.h)
    std::vector<uint32_t> runtime_tids;  // the runtime's own threads: no thread of the program
  };
  // What the runtime wrote so far (final dumps, else the latest snapshots) as a profile,
  // with the samples taken inside its threads placed under their nodes.
  Collected collect(const std::vector<NodeSample>& samples = {}) const;

  // attach --mode exact (exact_attach.cpp, docs/attach.md): loads the runtime into `pid`
  // and starts it there, its settings in a file and its control FIFO in the directory; the
  // injector holds `lock` (attach_lock.h) till its step is done, callprof killed or not.
  Result<inject::LoadedRuntime> attach(pid_t pid, const inject::AttachLock& lock);
  // Asks the attached runtime in process `pid` (and in the children it forked, --children)
  // to give the program back its hooks and write its data, and waits at most `timeout_ms`
  // for them (false: not all answered).
  bool detach(pid_t pid, int timeout_ms);
  // Whether the image the runtime was attached to replaced itself (exec), its data written.
  bool image_ended() const;

  ExactSource(const ExactSource&) = delete;
  ExactSource& operator=(const ExactSource&) = delete;
  ~ExactSource() override;

 private:
  ExactSource(const RecordArgs& args, TempDir dir, Reporter& reporter)
      : args_(args), dir_(std::move(dir)), reporter_(reporter) {}
  const RecordArgs& args_;
  TempDir dir_;
  std::string runtime_;
  std::vector<std::pair<std::string, std::string>> env_;
  int control_fd_ = -1;  // attached: the FIFO the runtime detaches on (a byte, or EOF)
  Reporter& reporter_;
  const ExactSamples* samples_ = nullptr;
  std::optional<inject::LoadedRuntime> attached_;  // what the attach found
  std::vector<UnmetThread> unmet_threads_;         // attached: threads with frames open, read at the window's end
  std::vector<wire::AttachFrame> attach_frames_;   // attached: every thread's frames open at the attach
  std::vector<std::string> unfollowed_;            // processes still running at the end: their data is missing
  size_t from_snapshots_ = 0;                      // of the last build: images whose data ends at their last snapshot
  uint64_t build_ns_ = 0;                          // the last build's reading, symbolizing and building
  std::string cost_note_;                          // details(): what the hooks took, when it was much
  CalibrationCache calibration_cache_;             // for the hook sets the runtime calibrates for the program
};

}  // namespace callprof::record

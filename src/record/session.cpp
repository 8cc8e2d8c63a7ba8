#include "record/session.h"

#include <elf.h>
#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "collect/perf/perf_target.h"
#include "model/transform/attach_syscalls.h"
#include "record/drain_loop.h"
#include "record/observed_launch.h"
#include "record/option_rules.h"
#include "record/output_path.h"
#include "record/record_signals.h"
#include "record/snapshot_watcher.h"
#include "target/descendants.h"
#include "target/frame_pointers.h"
#include "target/process_check.h"
#include "trace/profile_file.h"
#include "util/clock.h"
#include "util/escape.h"
#include "util/strings.h"

namespace callprof::record {
namespace {

using stacks::SampleCollector;
using stacks::UnwindMethod;

int64_t realtime_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool given(const RecordArgs& a, std::string_view option) {
  return std::find(a.given.begin(), a.given.end(), option) != a.given.end();
}

Result<Mode> choose_mode(const RecordArgs& a, const ExecutableInfo& exe) {
  if (a.mode == Mode::Syscall || a.mode == Mode::Probe) return *a.mode;
  if (a.mode == Mode::Sample || (!a.mode && !exe.has_hooks)) return Mode::Sample;
  if (!exe.dynamic && exe.has_hooks)
    return make_error(exe.path +
                      " is statically linked: exact mode loads its runtime with LD_PRELOAD, so link it "
                      "dynamically (or use --mode sample)");
  // A program without hooks gives exact mode nothing of its own; only the instrumented
  // programs it starts would be recorded, which --children says is meant.
  if (!exe.has_hooks && !given(a, "--children"))
    return make_error(
        fmt::format("--mode exact: {} has no -finstrument-functions hooks, so exact mode records nothing "
                    "of it (build it with -finstrument-functions, use --mode sample, or add --children "
                    "when it starts instrumented programs)",
                    exe.path));
  return Mode::Exact;
}

// Why auto chose the mode, for messages ("" when the user chose).
std::string why_mode(const RecordArgs& a, const ExecutableInfo& exe) {
  if (a.mode || a.attach()) return "";
  return exe.path + (exe.has_hooks ? " has" : " has no") + " -finstrument-functions hooks";
}

perf::SamplingOptions perf_options(const SamplingArgs& a) {
  perf::SamplingOptions o;
  o.frequency_hz = a.frequency;
  for (auto e : {perf::SampleEvent::CpuClock, perf::SampleEvent::Cycles, perf::SampleEvent::Instructions,
                 perf::SampleEvent::CacheMisses, perf::SampleEvent::BranchMisses})
    if (a.event == to_string(e)) o.event = e;
  o.unwind = a.call_graph == "dwarf" ? perf::UnwindMode::Dwarf : perf::UnwindMode::FramePointers;
  o.stack_bytes = a.stack_bytes & ~7u;
  o.kernel_stacks = !a.no_kernel;
  o.off_cpu = a.off_cpu;
  o.follow_children = a.children;
  return o;
}

// Exact mode with --syscalls: no samples, only the records that say where code is mapped
// (for the calls' stacks); exact mode follows children, so this does too.
perf::SamplingOptions side_band_options() {
  perf::SamplingOptions o;
  o.frequency_hz = 0;
  o.follow_children = true;
  return o;
}

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : std::string(strsignal(signal));
}

size_t node_count(const Profile& p) {
  size_t n = 0;
  for (const auto& t : p.threads) n += t.tree.size() - 1;
  return n;
}

// How the entry stacks of system calls or probe hits were unwound (the frame-rule walk, or
// libdwfl where a rule is not one of its kinds) and what processing them cost.
std::string entry_stacks_note(const SampleCollector::Counts& c) {
  return fmt::format(
      "processing: {:.1f} ms for the entry stacks ({} walked by frame rules, {} unwound by libdwfl), "
      "{:.1f} ms symbolizing and building",
      double(c.unwind_ns) / 1e6, c.syscall_fast_walks, c.syscall_unwinds, double(c.build_ns) / 1e6);
}

}  // namespace

Result<std::unique_ptr<RecordingSession>> RecordingSession::prepare(const RecordArgs& args, Reporter& reporter) {
  std::unique_ptr<RecordingSession> session(new RecordingSession(args, reporter));
  if (Status s = session->preflight(); !s) return s.error();
  return session;
}

RecordingSession::~RecordingSession() = default;

Status RecordingSession::preflight() {
  if (args_.attach()) {
    mode_ = args_.mode.value_or(Mode::Sample);
    if (Status s = perf::check_process(args_.pid); !s)  // before anything reads its files
      return make_error("cannot attach to process " + std::to_string(args_.pid) + ": " + s.error().message);
    if (Status s = check_attachable(args_.pid); !s) return s;
    if (!args_.mode) mode_ = attach_mode();
    std::ifstream comm("/proc/" + std::to_string(args_.pid) + "/comm");
    std::getline(comm, comm_);
    if (mode_ == Mode::Exact)
      if (Status s = inspect_attached(); !s) return s;
  } else {
    if (args_.command.empty()) return make_error("no program given");
    auto exe = inspect_executable(args_.command.front());
    if (!exe) return exe.error();
    exe_ = *exe;
    if (Status s = check_runnable(exe_); !s) return s;
  }
  if (Status out = check_output(args_.output, args_.attach() ? "" : exe_.path); !out) return out;
  if (!args_.attach()) {
    auto mode = choose_mode(args_, exe_);
    if (!mode) return mode.error();
    mode_ = *mode;
  }
  if (Status s = check_options_apply(args_, mode_, why_mode(args_, exe_)); !s) return s;
  choose_unwinding();
  if (mode_ == Mode::Syscall) {  // system calls alone: no samples, all calls unless chosen
    args_.sampling.frequency = 0;
    if (!args_.syscalls.enabled()) args_.syscalls.selection = "all";
  }
  if (mode_ == Mode::Probe) {  // which functions: a pattern that matches nothing ends here
    if (!given(args_, "--freq")) args_.sampling.frequency = 0;
    auto source =
        ProbeSource::prepare(args_, args_.attach() ? attached_modules(args_.pid) : launched_modules(exe_), reporter_);
    if (!source) return source.error();
    probes_.emplace(std::move(*source));
  }
  if (mode_ == Mode::Exact) {  // the runtime, the directory, the filters' plan
    auto source = ExactSource::prepare(args_, exe_, reporter_);
    if (!source) return source.error();
    exact_.emplace(std::move(*source));
  }
  return Ok{};
}

Result<Outcome> RecordingSession::run() {
  start_realtime_ns_ = realtime_ns();
  start_steady_ns_ = int64_t(monotonic_ns());
  if (Status s = start(); !s) return s.error();
  Outcome out;
  observe(out);
  build_and_write(out);
  if (out.program && out.program->signaled)
    reporter_.note(fmt::format("the program was killed by signal {} ({}){}", out.program->signal,
                               signal_name(out.program->signal),
                               out.program->signal == SIGKILL && mode_ == Mode::Exact
                                   ? ": its data ends at its last snapshot (see --snapshot-interval)"
                                   : ""));
  return out;
}

Status RecordingSession::start() {
  if (mode_ != Mode::Exact) {
    make_collector();
    if (args_.syscalls.enabled())
      if (Status s = open_tracing(args_.sampling.children); !s) return s;
  }
  Status started = mode_ == Mode::Exact ? (args_.attach() ? start_exact_attached() : start_exact())
                   : args_.attach()     ? start_attached()
                                        : start_launched();
  if (started && pid_ > 0) signals_.program_running(pid_);
  return started;
}

void RecordingSession::make_collector() {
  const SamplingArgs& s = args_.sampling;
  const bool dwarf = s.call_graph == "dwarf" || mode_ == Mode::Probe;  // probe hits carry registers and stack
  collector_ = std::make_unique<SampleCollector>(dwarf ? UnwindMethod::Dwarf : UnwindMethod::FramePointers);
  collector_->set_timeline_events(args_.timeline ? args_.timeline_events : 0);
  collector_->set_inlined_frames(!s.no_inline);
  collector_->set_syscall_time_is_wall(mode_ == Mode::Syscall);
  if (s.event != "cpu-clock" && s.frequency > 0) collector_->set_sample_weight_ns(1'000'000'000 / s.frequency);
}

Status RecordingSession::open_tracing(bool follow_children) {
  auto t = SyscallTracing::open(args_.syscalls, follow_children, *collector_,
                                mode_ == Mode::Exact ? args_.exact_sample_hz() : 0);
  if (!t) return t.error();
  tracing_ = std::move(*t);
  return Ok{};
}

Status RecordingSession::start_exact() {
  reporter_.note(exe_.has_hooks ? "exact mode: " + exe_.path + " has -finstrument-functions hooks"
                                : "exact mode: " + exe_.path +
                                      " has no hooks itself; profiling the instrumented programs it starts");
  LaunchSpec spec;
  spec.argv = args_.command;
  exact_->add_environment(spec);
  if (Status s = adopt_orphans(); !s) reporter_.warn(s.error().message);
  if (!args_.syscalls.enabled() && args_.exact_sample_hz() == 0) {
    auto pid = launch(spec);
    if (!pid) return pid.error();
    pid_ = *pid;
    return Ok{};
  }
  // --syscalls or -F: the kernel probe and a side-band perf session (mappings, for the
  // system calls' stacks) are opened on the program before it execs.
  if (args_.exact_sample_hz() > 0)
    reporter_.note(
        fmt::format("exact mode: also sampling at {} Hz, each sample under the node on top of its thread's "
                    "shadow stack",
                    args_.exact_sample_hz()));
  collector_ = std::make_unique<SampleCollector>(UnwindMethod::Dwarf);
  if (Status s = open_tracing(true); !s) return s;
  auto launched = launch_observed(spec, side_band_options(), tracing_.get());
  if (!launched) return launched.error();
  pid_ = launched->pid;
  perf_.emplace(std::move(launched->session));
  return Ok{};
}

Status RecordingSession::start_launched() {
  const SamplingArgs& s = args_.sampling;
  if (mode_ == Mode::Syscall)
    reporter_.note(fmt::format("syscall mode: {}: tracing {} with {} stacks", exe_.path, args_.syscalls.selection,
                               args_.syscalls.stacks));
  else if (mode_ == Mode::Probe && (s.frequency || tracing_))  // the probes' own line comes with their cost
    reporter_.note(fmt::format(
        "probe mode: also {}{}", s.frequency ? fmt::format("sampling at {} Hz", s.frequency) : "",
        tracing_ ? (s.frequency ? "; " : "") + ("tracing system calls " + args_.syscalls.selection) : std::string()));
  else if (mode_ != Mode::Probe)
    reporter_.note(
        fmt::format("sample mode: {}: {} at {} Hz, {} unwinding{}{}{}", exe_.path, s.event, s.frequency, s.call_graph,
                    unwind_reason_.empty() ? "" : " (" + unwind_reason_ + ")",
                    exe_.has_hooks ? "" : " (no instrumentation hooks: exact mode needs -finstrument-functions)",
                    tracing_ ? "; tracing system calls " + args_.syscalls.selection : std::string()));
  if (is_wrapper(exe_) && !s.children)
    reporter_.warn(
        fmt::format("{} is a wrapper: the work is in the programs it starts, and {} mode follows only it; "
                    "add --children to follow them (or --mode exact --children when they are instrumented)",
                    exe_.path, mode_name(mode_)));
  LaunchSpec spec;
  spec.argv = args_.command;
  auto launched = launch_observed(spec, session_options(1), tracing_.get());
  if (!launched) return launched.error();
  pid_ = launched->pid;
  perf_.emplace(std::move(launched->session));
  return Ok{};
}

Status RecordingSession::start_attached() {
  auto session = perf::PerfSession::attach(args_.pid, session_options(perf::thread_ids(args_.pid).size()));
  if (!session) return session.error();
  perf_.emplace(std::move(*session));
  if (tracing_)
    if (Status s = tracing_->add_process(args_.pid); !s) return s;
  collector_->add_initial(perf_->initial_threads(), perf_->initial_mappings());
  const uint64_t hz = args_.sampling.frequency;
  reporter_.note(fmt::format("attached to {} ({} threads){}; {}", args_.pid, perf_->initial_threads().size(),
                             hz                     ? fmt::format(" at {} Hz", hz)
                             : mode_ == Mode::Probe ? " with probes"
                                                    : "",
                             args_.duration_ns > 0 ? fmt::format("for {} s", double(args_.duration_ns) / 1e9)
                                                   : std::string("Ctrl-C to stop")));
  start_steady_ns_ = int64_t(monotonic_ns());
  return Ok{};
}

// attach --mode exact: the runtime goes into the process on a borrowed thread (docs/attach.md).
Status RecordingSession::start_exact_attached() {
  // -F: the kernel probe traces the process before the runtime comes in, so the threads'
  // shadow stacks it announces are seen; samples count from the window's start.
  if (args_.exact_sample_hz() > 0) {
    collector_ = std::make_unique<SampleCollector>(UnwindMethod::FramePointers);
    if (Status s = open_tracing(true); !s) return s;
    if (Status s = tracing_->add_process(args_.pid); !s) return s;
  }
  auto loaded = exact_->attach(args_.pid);
  if (!loaded)
    return make_error("cannot attach to process " + std::to_string(args_.pid) + ": " + loaded.error().message);
  attached_ = *loaded;
  reporter_.note(fmt::format(
      "attached to {} in exact mode: its {} threads stopped for {:.1f} ms, {} frames open in {} of them; thread {} "
      "held {:.1f} ms to load the runtime (at a safe point after {:.1f} ms); {}",
      args_.pid, loaded->stopped_threads, double(loaded->stop_ns) / 1e6, loaded->open_frames,
      loaded->threads_with_open_frames, loaded->borrowed_tid, double(loaded->held_ns) / 1e6,
      double(loaded->waited_ns) / 1e6,
      args_.duration_ns > 0 ? fmt::format("for {} s", double(args_.duration_ns) / 1e9)
                            : std::string("Ctrl-C to stop")));
  start_steady_ns_ = int64_t(monotonic_ns());
  if (tracing_) tracing_->exact_samples().set_window(uint64_t(start_steady_ns_), UINT64_MAX);
  return Ok{};
}

// Until the duration ends, Ctrl-C or the process ends; then the runtime detaches.
void RecordingSession::wait_attached() {
  const int64_t until = args_.duration_ns > 0 ? start_steady_ns_ + args_.duration_ns : INT64_MAX;
  while (!RecordSignals::interrupted() && int64_t(monotonic_ns()) < until && process_alive(args_.pid)) {
    if (tracing_) tracing_->poll();
    if (exact_->image_ended()) {  // an exec: the new image runs unprofiled
      reporter_.note(fmt::format("process {} replaced its image (exec): its recording ends there", args_.pid));
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Samples end with the window: a detached thread's shadow stack stays announced, dormant.
  if (tracing_) tracing_->exact_samples().set_window(uint64_t(start_steady_ns_), monotonic_ns());
  // A process that ended wrote its data as it exited: nothing to wait for.
  if (!exact_->detach(args_.pid, 5000))
    reporter_.warn(
        fmt::format("the runtime in process {} did not confirm the detach: its data may be missing", args_.pid));
  if (tracing_) tracing_->finish();
}

// The attached process's executable (by its real path: the runtime compares it).
Result<ExecutableInfo> RecordingSession::attached_executable() const {
  const std::string link = "/proc/" + std::to_string(args_.pid) + "/exe";
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink(link, ec).string();
  return inspect_executable(ec ? link : exe);
}

// attach without --mode, as record: exact when the program has hooks or patchable entries
// (and exact mode can attach to it) and no option of another mode was given; else sample.
Mode RecordingSession::attach_mode() const {
  auto exe = attached_executable();
  const bool exact = exe && (exe->has_hooks || exe->patchable) && exe->dynamic && exe->elf_class == ELFCLASS64;
  return exact && check_options_apply(args_, Mode::Exact, "") ? Mode::Exact : Mode::Sample;
}

Status RecordingSession::inspect_attached() {
  auto info = attached_executable();
  if (!info) return make_error(fmt::format("cannot attach to process {}: {}", args_.pid, info.error().message));
  exe_ = *info;
  if (!exe_.dynamic)
    return make_error(
        fmt::format("process {} is statically linked: exact mode attaches through the loader "
                    "(use --mode sample or --mode probe)",
                    args_.pid));
  if (exe_.elf_class != ELFCLASS64)
    return make_error(fmt::format("process {} is not a 64-bit program: exact mode cannot attach", args_.pid));
  if (!exe_.has_hooks && !exe_.patchable)
    return make_error(
        fmt::format("process {} ({}) has neither -finstrument-functions hooks nor -fpatchable-function-entry "
                    "nops: exact mode needs one of them (use --mode sample or --mode probe)",
                    args_.pid, escape_text(exe_.path)));
  return Ok{};
}

// Until the program ends (or, attached, the duration or Ctrl-C): the drain loop when there
// is a perf session, snapshots in exact mode.
void RecordingSession::observe(Outcome& out) {
  std::optional<SnapshotWatcher> watcher;
  if (exact_ && exact_->wants_snapshots())
    watcher.emplace([this] { return exact_->snapshot_state(); }, [this] { write_snapshot(); });
  if (args_.attach()) signals_.attached_recording();
  if (perf_) drain_perf();
  if (exact_ && args_.attach()) wait_attached();
  if (args_.attach()) return signals_.finishing();
  auto status = wait_for_exit(pid_);
  signals_.finishing();
  if (status)
    out.program = *status;
  else
    reporter_.error(status.error().message);
  if (exact_) wait_for_descendants();
}

// Processes the program left running (an orphaned child, a daemon) were adopted: their
// calls are part of the run, and they write their data when they end.
void RecordingSession::wait_for_descendants() {
  std::vector<pid_t> running = running_children();
  if (running.empty()) return;
  std::string pids;
  for (pid_t p : running) pids += (pids.empty() ? "" : ", ") + std::to_string(p);
  reporter_.note(fmt::format("the program left {} process{} running ({}): waiting for {} to end (Ctrl-C stops waiting)",
                             running.size(), running.size() == 1 ? "" : "es", pids,
                             running.size() == 1 ? "it" : "them"));
  if (wait_for_children()) return;
  for (pid_t p : running_children())
    unfollowed_.push_back(
        fmt::format("process {} was still running when the recording stopped: its calls "
                    "are missing (it writes them when it ends)",
                    p));
}

// --call-graph auto: DWARF unless the program keeps frame pointers (a frame-pointer walk
// through code without them loses the callers). Only sampling unwinds this way; probe
// hits carry their own small stack copy.
void RecordingSession::choose_unwinding() {
  std::string& graph = args_.sampling.call_graph;
  if (graph != "auto") return;
  if (mode_ != Mode::Sample) {
    graph = "fp";
    return;
  }
  const std::string program = args_.attach() ? "/proc/" + std::to_string(args_.pid) + "/exe" : exe_.path;
  const FramePointerShare share = frame_pointer_share(program);
  graph = share.keeps_frame_pointers() ? "fp" : "dwarf";
  const std::string name = args_.attach() ? "the process" : exe_.path;
  unwind_reason_ = share.functions == 0
                       ? fmt::format("auto: no function symbols in {} to tell whether it keeps frame pointers", name)
                       : fmt::format("auto: {} of {} functions of {} set up a frame pointer", share.with_frame_pointer,
                                     share.functions, name);
}

perf::SamplingOptions RecordingSession::session_options(size_t threads) {
  perf::SamplingOptions o = perf_options(args_.sampling);
  if (probes_) probes_->configure(o, threads, reporter_);
  return o;
}

void RecordingSession::drain_perf() {
  std::vector<SideSource*> sides;
  if (tracing_) sides.push_back(tracing_.get());
  const int64_t limit = args_.attach() ? args_.duration_ns : 0;
  perf::RecordSink& sink = probes_ ? probes_->start(*collector_, *perf_) : *collector_;
  std::optional<ProbeBudgetKeeper> budget;
  if (probes_ && args_.probes.budget_percent > 0) sides.push_back(&budget.emplace(*probes_, *perf_, reporter_));
  drain(*perf_, sink, sides, [&] {
    return RecordSignals::interrupted() || (limit > 0 && int64_t(monotonic_ns()) - start_steady_ns_ >= limit);
  });
}

void RecordingSession::build_and_write(Outcome& out) {
  size_t from_snapshots = 0;
  std::optional<Profile> p = mode_ == Mode::Exact ? build_exact(true, from_snapshots) : std::optional(build_sampled());
  stamp(*p, true);
  out.written = write(*p, true);
  if (out.written) say_written(*p, true, from_snapshots);
}

std::optional<Profile> RecordingSession::build_exact(bool final, size_t& from_snapshots) {
  // The samples only at the end: the drain loop adds to them while snapshots are written.
  const bool sampled = final && tracing_ && args_.exact_sample_hz() > 0;
  const uint64_t started = monotonic_ns();
  ExactSource::Collected c = exact_->collect(sampled ? tracing_->exact_samples().samples() : std::vector<NodeSample>{});
  build_ns_ = monotonic_ns() - started;
  if (sampled) stamp_exact_samples(c.built);
  if (c.empty) {
    if (!final) return std::nullopt;  // no snapshot yet
    c.warnings.push_back(
        "the program wrote no profile data (was it killed before its first snapshot, or did it "
        "never call an instrumented function?)");
  }
  if (final) {
    c.warnings.insert(c.warnings.end(), unfollowed_.begin(), unfollowed_.end());
    for (const auto& w : c.warnings) reporter_.warn(w);
    for (const auto& w : c.built.warnings) reporter_.warn(w);
  }
  Metadata& meta = c.built.profile.meta;
  meta.warnings.insert(meta.warnings.end(), c.warnings.begin(), c.warnings.end());
  from_snapshots = c.from_snapshots;
  // The system calls, as a profile of their own to hang into the exact trees.
  if (final && tracing_ && args_.syscalls.enabled()) {
    std::vector<std::string> warnings;
    Profile traced = collector_->build(warnings);
    for (const auto& w : warnings) reporter_.warn(w);
    tracing_->annotate(traced.meta);
    std::erase_if(traced.threads, [&](const Thread& t) {  // calls it made before it muted itself
      return std::find(c.runtime_tids.begin(), c.runtime_tids.end(), t.tid) != c.runtime_tids.end();
    });
    attach_syscalls(c.built.profile, traced);
    tracing_->exact_callers().attach(c.built.profile, c.built.thread_nodes);
  }
  return std::move(c.built.profile);
}

// What the samples inside exact mode were and what became of them.
void RecordingSession::stamp_exact_samples(BuildResult& built) const {
  const ExactSamples& taken = tracing_->exact_samples();
  SamplingFacts& x = built.profile.meta.sampling.emplace();
  x.frequency_hz = args_.exact_sample_hz();
  x.unwind = Unwinding::ShadowStack;
  x.samples = taken.total();
  x.runtime_samples = taken.in_runtime() + built.samples.runtime;
  x.unplaced_samples = built.samples.unplaced;
  x.lost_records = tracing_->lost_events();
  if (x.samples == 0) {
    built.profile.meta.warnings.push_back("no samples were taken (did the program run long enough to be sampled?)");
    reporter_.warn(built.profile.meta.warnings.back());
  }
}

Profile RecordingSession::build_sampled() {
  if (probes_) probes_->finish();
  std::vector<std::string> warnings;
  Profile p = collector_->build(warnings);
  for (const auto& w : warnings) reporter_.warn(w);
  if (tracing_) tracing_->annotate(p.meta);
  if (args_.attach())  // the collector knows exits it saw; a thread that outlived the recording is still running
    for (Thread& t : p.threads) t.finished = t.finished && !thread_alive(pid_t(t.pid), pid_t(t.tid));
  if (const uint64_t foreign = perf_->stats().foreign_records; foreign > 0 && !args_.sampling.children) {
    p.meta.warnings.push_back(
        fmt::format("the program started other processes, which were not recorded ({} of "
                    "their records dropped): --children follows them",
                    foreign));
    reporter_.warn(p.meta.warnings.back());
  }
  if (probes_) probes_->annotate(p, *perf_, reporter_);
  if (mode_ == Mode::Syscall || (mode_ == Mode::Probe && args_.sampling.frequency == 0)) return p;
  const auto& c = collector_->counts();
  SamplingFacts& x = p.meta.sampling.emplace();
  x.frequency_hz = args_.sampling.frequency;
  x.event = args_.sampling.event;
  x.unwind = mode_ == Mode::Probe ? Unwinding::Dwarf : parse_unwinding(args_.sampling.call_graph);
  x.unwind_reason = unwind_reason_;
  x.samples = c.samples;
  x.off_cpu_samples = c.off_cpu_samples;
  x.incomplete_stacks = c.incomplete_stacks;
  x.lost_records = perf_->stats().decode.lost_records;
  x.lost_samples = perf_->stats().decode.lost_samples;
  x.truncated_stacks = c.truncated_stacks;
  x.inlined_frames = !args_.sampling.no_inline;
  if (c.samples + c.off_cpu_samples == 0) {
    p.meta.warnings.push_back(args_.attach()
                                  ? "no samples were taken (did the process run during the recording?)"
                                  : "no samples were taken (did the program run long enough to be sampled?)");
    reporter_.warn(p.meta.warnings.back());
  }
  return p;
}

// What every recording's metadata says about itself, written in one place.
void RecordingSession::stamp(Profile& p, bool final) const {
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  p.meta.command = command_line();
  p.meta.mode = mode_;
  p.meta.hostname = host;
  p.meta.start_realtime_ns = start_realtime_ns_;
  p.meta.duration_ns = int64_t(monotonic_ns()) - start_steady_ns_;
  p.meta.callprof_version = CALLPROF_VERSION;
  p.meta.snapshot = !final;
  if (mode_ == Mode::Exact) stamp_exact_facts(p.meta, args_);
  if (mode_ == Mode::Exact && args_.attach()) {
    p.meta.exact->attached = true;
    p.meta.exact->frames_open_at_attach = attached_.open_frames;
    p.meta.exact->threads_open_at_attach = attached_.threads_with_open_frames;
  }
}

std::string RecordingSession::command_line() const {
  if (!args_.attach()) return join(args_.command);
  std::string command = "pid " + std::to_string(args_.pid);
  if (!comm_.empty()) command += " (" + comm_ + ")";
  return command;
}

// The previous profile moves to .old before the first write of this recording; each write
// replaces the file atomically (readers see the old profile or the new one).
bool RecordingSession::write(const Profile& p, bool final) {
  std::lock_guard lock(write_mutex_);
  if (!kept_previous_) keep_previous(args_.output);
  kept_previous_ = true;
  if (Status s = write_profile(p, args_.output); !s) {
    // Launched, callprof's exit status is the program's: this line is all that says so.
    if (final)
      reporter_.error(s.error().message + ": THE PROFILE IS LOST" +
                      (args_.attach() ? "" : " (the exit status is the program's)"));
    return false;
  }
  return true;
}

void RecordingSession::write_snapshot() {
  size_t from_snapshots = 0;
  std::optional<Profile> p = build_exact(false, from_snapshots);
  if (!p) return;
  stamp(*p, false);
  if (write(*p, false)) say_written(*p, false, from_snapshots);
}

void RecordingSession::say_written(const Profile& p, bool final, size_t from_snapshots) const {
  const std::string& path = args_.output;
  const char* s = p.threads.size() == 1 ? "" : "s";
  if (mode_ == Mode::Exact) {
    std::error_code ec;
    reporter_.note(fmt::format(
        "{} {}: {} process{}, {} thread{}, {} call paths, {} functions ({:.1f} KiB){}; reading, symbolizing and "
        "building {:.1f} ms",
        final ? "wrote" : "snapshot:", path, p.processes.size(), p.processes.size() == 1 ? "" : "es", p.threads.size(),
        s, node_count(p), p.functions.size(), double(std::filesystem::file_size(path, ec)) / 1024,
        from_snapshots ? fmt::format(" ({} up to its last snapshot)", from_snapshots) : std::string(),
        double(build_ns_) / 1e6));
    return;
  }
  const auto& c = collector_->counts();
  if (mode_ == Mode::Syscall) {
    const uint64_t lost = p.meta.syscalls ? p.meta.syscalls->lost_events : 0;
    reporter_.note(fmt::format("wrote {}: {} system calls on {} paths, {} lost, {} thread{}", path, c.syscalls,
                               c.syscall_paths, lost, p.threads.size(), s));
    reporter_.note(entry_stacks_note(c));
    return;
  }
  if (mode_ == Mode::Probe) {
    const ProbeFacts& f = *p.meta.probes;
    reporter_.note(
        fmt::format("wrote {}: {} calls of {} probed function{}, {} hits (~{:.1f} ms of probe cost), {} thread{}", path,
                    probes_->calls(), f.probed, f.probed == 1 ? "" : "s", f.entries + f.exits,
                    double((f.entries + f.exits) * f.cost_per_hit_ns) / 1e6, p.threads.size(), s));
    reporter_.note(entry_stacks_note(c));
    return;
  }
  const auto& decode = perf_->stats().decode;
  const uint64_t all = c.samples + c.off_cpu_samples;
  reporter_.note(fmt::format("wrote {}: {} samples ({} off-CPU), {} lost, {} thread{}{}", path, c.samples,
                             c.off_cpu_samples, decode.lost_records + decode.lost_samples, p.threads.size(), s,
                             c.truncated_stacks
                                 ? fmt::format("; {} stacks ({:.1f} %) truncated", c.truncated_stacks,
                                               100.0 * double(c.truncated_stacks) / double(std::max<uint64_t>(all, 1)))
                                 : std::string()));
  reporter_.note(fmt::format("processing: unwinding {:.1f} ms, symbolizing and building {:.1f} ms ({:.0f} samples/s)",
                             double(c.unwind_ns) / 1e6, double(c.build_ns) / 1e6,
                             double(all) * 1e9 / double(std::max<uint64_t>(1, c.unwind_ns + c.build_ns))));
}

}  // namespace callprof::record

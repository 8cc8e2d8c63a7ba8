#include "record/session.h"

#include <elf.h>
#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "collect/perf/perf_target.h"
#include "record/drain_loop.h"
#include "record/observed_launch.h"
#include "record/option_rules.h"
#include "record/output_path.h"
#include "record/record_signals.h"
#include "record/snapshot_watcher.h"
#include "target/descendants.h"
#include "target/frame_pointers.h"
#include "target/inject/hook_slots.h"
#include "target/launcher.h"
#include "target/process_check.h"
#include "trace/profile_file.h"
#include "util/clock.h"
#include "util/escape.h"
#include "util/strings.h"

namespace callprof::record {
namespace {

int64_t realtime_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool given(const RecordArgs& a, std::string_view option) {
  return std::find(a.given.begin(), a.given.end(), option) != a.given.end();
}

// The module of the launched program's (or of the libraries it starts with) that imports
// pthread_cancel, "" when none: a cancelled thread unwinds with libc's own copy of the
// unwinder, which would meet a patched function's replaced return address (docs/attach.md).
std::string cancelling_module(const std::vector<inject::ModuleSlots>& start_up) {
  for (const inject::ModuleSlots& m : start_up)
    for (const inject::HookSlot& s : m.slots)
      if (s.function == "pthread_cancel") return m.path;
  return "";
}

// `canceller`: cancelling_module(exe) for a program whose entries would be patched.
Result<Mode> choose_mode(const RecordArgs& a, const ExecutableInfo& exe, const std::string& canceller) {
  if (a.mode == Mode::Syscall || a.mode == Mode::Probe) return *a.mode;
  if (a.mode == Mode::Sample || (!a.mode && !exe.exact_ready())) return Mode::Sample;
  if (!exe.dynamic && exe.exact_ready())
    return make_error(exe.path +
                      " is statically linked: exact mode loads its runtime with LD_PRELOAD, so link it "
                      "dynamically (or use --mode sample)");
  // A program without hooks gives exact mode nothing of its own; only the instrumented
  // programs it starts would be recorded, which --children says is meant.
  if (!exe.exact_ready() && !given(a, "--children"))
    return make_error(
        fmt::format("--mode exact: {} has no -finstrument-functions hooks and no -fpatchable-function-entry nops, "
                    "so exact mode records nothing of it (build it with one of them, use --mode sample, or add "
                    "--children when it starts instrumented programs)",
                    exe.path));
  if (!canceller.empty()) {
    if (!a.mode) return Mode::Sample;  // why_mode says why
    return make_error(
        fmt::format("--mode exact: {} calls pthread_cancel, whose unwinding exact mode cannot follow in a program "
                    "built with -fpatchable-function-entry (build it with the hook flags, or use --mode sample)",
                    canceller));
  }
  return Mode::Exact;
}

// Why auto chose the mode, for messages ("" when the user chose).
std::string why_mode(const RecordArgs& a, const ExecutableInfo& exe, const std::string& canceller) {
  if (a.mode || a.attach()) return "";
  if (entries_patched(exe))
    return exe.path + " has -fpatchable-function-entry nops" +
           (canceller.empty() ? "" : " but calls pthread_cancel, which exact mode cannot follow there");
  return exe.path + (exe.has_hooks ? " has" : " has no") + " -finstrument-functions hooks";
}

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : std::string(strsignal(signal));
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
    // An earlier attach's injector may still hold a thread (callprof killed during its step).
    auto lock = inject::AttachLock::acquire(args_.pid, 5000);
    if (!lock) return make_error("cannot attach to process " + std::to_string(args_.pid) + ": " + lock.error().message);
    attach_lock_ = std::move(*lock);
    if (Status s = check_attachable(args_.pid); !s) return s;
    if (!args_.mode) mode_ = attach_mode();
    if (mode_ != Mode::Exact) attach_lock_.release();  // only exact mode holds the threads
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
  // A launched program built to be attached: its start-up modules' slots, read once.
  if (!args_.attach() && entries_patched(exe_)) start_up_slots_ = inject::start_up_slots(exe_.path);
  const std::string canceller = cancelling_module(start_up_slots_);
  if (!args_.attach()) {
    auto mode = choose_mode(args_, exe_, canceller);
    if (!mode) return mode.error();
    mode_ = *mode;
  }
  if (Status s = check_options_apply(args_, mode_, why_mode(args_, exe_, canceller)); !s) return s;
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
    probes_ = std::move(*source);
  }
  if (mode_ == Mode::Exact) {  // the runtime, the directory, the filters' plan
    auto source = ExactSource::prepare(args_, exe_, start_up_slots_, reporter_);
    if (!source) return source.error();
    exact_ = std::move(*source);
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
  if (Status s = open_sources(); !s) return s;
  Status started = args_.attach() ? attach_target() : launch_target();
  if (started && pid_ > 0) signals_.program_running(pid_);
  return started;
}

// The sources the mode and options ask for, beside those prepare() opened (the runtime,
// the probes), listed in the order they build the profile: the runtime's trees first, or
// the collector's; then the system calls and the probes' facts.
Status RecordingSession::open_sources() {
  const uint32_t exact_hz = mode_ == Mode::Exact ? args_.exact_sample_hz() : 0;
  const bool traced = args_.syscalls.enabled() || exact_hz > 0;
  // Exact mode needs the perf session only for what the tracer's stacks need: mappings.
  if (mode_ != Mode::Exact || traced) stacks_ = std::make_unique<StackSource>(args_, mode_, reporter_, unwind_reason_);
  if (traced) {
    auto t = SyscallTracing::open(args_.syscalls, mode_ == Mode::Exact || args_.sampling.children, stacks_->collector(),
                                  exact_hz, reporter_);
    if (!t) return t.error();
    tracing_ = std::move(*t);
    if (exact_hz > 0) exact_->take_samples_from(tracing_->exact_samples());
  }
  if (probes_) probes_->use(*stacks_);
  for (Source* s : std::array<Source*, 4>{exact_.get(), stacks_.get(), tracing_.get(), probes_.get()})
    if (s) sources_.push_back(s);
  return Ok{};
}

// Every source but the perf session's (opened by then) starts watching the target.
Status RecordingSession::watch(pid_t pid) {
  for (Source* s : sources_)
    if (Status w = s->watch(pid); !w) return w;
  return Ok{};
}

Status RecordingSession::launch_target() {
  say_starting();
  LaunchSpec spec;
  spec.argv = args_.command;
  for (Source* s : sources_) s->add_environment(spec);
  if (exact_)  // what the program leaves running still records
    if (Status s = adopt_orphans(); !s) reporter_.warn(s.error().message);
  if (!stacks_) {
    auto pid = launch(spec);
    if (!pid) return pid.error();
    pid_ = *pid;
    return Ok{};
  }
  // The perf session (and the tracer) are opened on the program before it execs.
  auto launched = launch_observed(spec, session_options(1), [this](pid_t pid) { return watch(pid); });
  if (!launched) return launched.error();
  pid_ = launched->pid;
  stacks_->use(std::move(launched->session));
  return Ok{};
}

void RecordingSession::say_starting() const {
  const SamplingArgs& s = args_.sampling;
  if (mode_ == Mode::Exact) {
    reporter_.note(exe_.has_hooks ? "exact mode: " + exe_.path + " has -finstrument-functions hooks"
                   : exe_.patchable
                       ? "exact mode: " + exe_.path +
                             " has -fpatchable-function-entry nops; each becomes a call of the runtime as it starts"
                       : "exact mode: " + exe_.path +
                             " has no hooks itself; profiling the instrumented programs it starts");
    if (args_.exact_sample_hz() > 0)
      reporter_.note(
          fmt::format("exact mode: also sampling at {} Hz, each sample under the node on top of its thread's "
                      "shadow stack",
                      args_.exact_sample_hz()));
    return;
  }
  if (mode_ == Mode::Syscall)
    reporter_.note(fmt::format("syscall mode: {}: tracing {} with {} stacks", exe_.path, args_.syscalls.selection,
                               args_.syscalls.stacks));
  else if (mode_ == Mode::Probe && (s.frequency || tracing_))  // the probes' own line comes with their cost
    reporter_.note(fmt::format(
        "probe mode: also {}{}", s.frequency ? fmt::format("sampling at {} Hz", s.frequency) : "",
        tracing_ ? (s.frequency ? "; " : "") + ("tracing system calls " + args_.syscalls.selection) : std::string()));
  else if (mode_ != Mode::Probe)
    reporter_.note(
        fmt::format("sample mode: {}: {} at {} Hz, {} unwinding{}{}{}", exe_.path, to_string(s.event), s.frequency,
                    to_string(*s.call_graph), unwind_reason_.empty() ? "" : " (" + unwind_reason_ + ")",
                    !exe_.exact_ready() ? " (no instrumentation: exact mode needs -finstrument-functions hooks)"
                    : !args_.mode && !cancelling_module(start_up_slots_).empty()
                        ? " (not exact mode: it imports pthread_cancel, which exact mode cannot follow in a patched "
                          "program)"
                        : "",
                    tracing_ ? "; tracing system calls " + args_.syscalls.selection : std::string()));
  if (is_wrapper(exe_) && !s.children)
    reporter_.warn(
        fmt::format("{} is a wrapper: the work is in the programs it starts, and {} mode follows only it; "
                    "add --children to follow them (or --mode exact --children when they are instrumented)",
                    exe_.path, mode_name(mode_)));
}

Status RecordingSession::attach_target() {
  if (exact_) return attach_exact();
  auto session = perf::PerfSession::attach(args_.pid, session_options(perf::thread_ids(args_.pid).size()));
  if (!session) return session.error();
  stacks_->use(std::move(*session));
  perf::PerfSession& perf = *stacks_->perf();
  if (Status s = watch(args_.pid); !s) return s;
  stacks_->collector().add_initial(perf.initial_threads(), perf.initial_mappings());
  const uint64_t hz = args_.sampling.frequency;
  reporter_.note(fmt::format("attached to {} ({} threads){}; {}", args_.pid, perf.initial_threads().size(),
                             hz                     ? fmt::format(" at {} Hz", hz)
                             : mode_ == Mode::Probe ? " with probes"
                                                    : "",
                             args_.duration_ns > 0 ? fmt::format("for {} s", double(args_.duration_ns) / 1e9)
                                                   : std::string("Ctrl-C to stop")));
  start_steady_ns_ = int64_t(monotonic_ns());
  return Ok{};
}

// attach --mode exact: the runtime goes into the process on a borrowed thread (docs/attach.md).
Status RecordingSession::attach_exact() {
  // The tracer watches the process before the runtime comes in, so the threads' shadow
  // stacks it announces are seen; samples count from the window's start.
  if (Status s = watch(args_.pid); !s) return s;
  auto loaded = exact_->attach(args_.pid, attach_lock_);
  attach_lock_.release();  // the injector holds it till it ends
  if (!loaded)
    return make_error("cannot attach to process " + std::to_string(args_.pid) + ": " + loaded.error().message);
  reporter_.note(fmt::format(
      "attached to {} in exact mode: its {} threads stopped for {:.1f} ms, {} frames open in {} of them; thread {} "
      "held {:.1f} ms to load the runtime (at a safe point after {:.1f} ms); {}",
      args_.pid, loaded->stopped_threads, double(loaded->stop_ns) / 1e6, loaded->open_frames,
      loaded->threads_with_open_frames, loaded->borrowed_tid, double(loaded->held_ns) / 1e6,
      double(loaded->waited_ns) / 1e6,
      args_.duration_ns > 0 ? fmt::format("for {} s", double(args_.duration_ns) / 1e9)
                            : std::string("Ctrl-C to stop")));
  start_steady_ns_ = int64_t(monotonic_ns());
  if (tracing_) tracing_->set_window(uint64_t(start_steady_ns_), UINT64_MAX);
  return Ok{};
}

// Until the duration ends, Ctrl-C or the process ends; then the runtime detaches.
void RecordingSession::wait_attached() {
  const int64_t until = args_.duration_ns > 0 ? start_steady_ns_ + args_.duration_ns : INT64_MAX;
  const std::vector<SideSource*> polled = sides();
  while (!RecordSignals::interrupted() && int64_t(monotonic_ns()) < until && process_alive(args_.pid)) {
    for (SideSource* side : polled) side->poll();
    if (exact_->image_ended()) {  // an exec: the new image runs unprofiled
      reporter_.note(fmt::format("process {} replaced its image (exec): its recording ends there", args_.pid));
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Samples and calls end with the window: a detached thread's shadow stack stays announced, dormant.
  if (tracing_) tracing_->set_window(uint64_t(start_steady_ns_), monotonic_ns());
  // A process that ended wrote its data as it exited: nothing to wait for.
  if (!exact_->detach(args_.pid, 5000))
    reporter_.warn(
        fmt::format("the runtime in process {} did not confirm the detach: its data may be missing", args_.pid));
  for (SideSource* side : polled) side->finish();
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
  const bool exact = exe && exe->exact_ready() && exe->dynamic && exe->elf_class == ELFCLASS64;
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
  if (!exe_.exact_ready())
    return make_error(
        fmt::format("process {} ({}) has neither -finstrument-functions hooks nor -fpatchable-function-entry "
                    "nops: exact mode needs one of them (use --mode sample or --mode probe)",
                    args_.pid, escape_text(exe_.path)));
  return Ok{};
}

// Until the program ends (or, attached, the duration or Ctrl-C): the drain loop when there
// is a perf session, snapshots in exact mode; then every source hears that the target ended.
void RecordingSession::observe(Outcome& out) {
  std::optional<SnapshotWatcher> watcher;
  if (exact_ && exact_->wants_snapshots())
    watcher.emplace([this] { return exact_->snapshot_state(); }, [this] { write_snapshot(); });
  if (args_.attach()) signals_.attached_recording();
  if (stacks_ && stacks_->perf()) drain_perf();
  if (exact_ && args_.attach()) wait_attached();
  if (args_.attach()) {
    signals_.finishing();
  } else {
    auto status = wait_for_exit(pid_);
    signals_.finishing();
    if (status)
      out.program = *status;
    else
      reporter_.error(status.error().message);
  }
  for (Source* s : sources_) s->target_ended();  // snapshots go on meanwhile
}

// --call-graph auto: DWARF unless the program keeps frame pointers (a frame-pointer walk
// through code without them loses the callers). Only sampling unwinds this way; probe
// hits carry their own small stack copy.
void RecordingSession::choose_unwinding() {
  std::optional<perf::UnwindMode>& graph = args_.sampling.call_graph;
  if (graph) return;
  if (mode_ != Mode::Sample) {
    graph = perf::UnwindMode::FramePointers;
    return;
  }
  const std::string program = args_.attach() ? "/proc/" + std::to_string(args_.pid) + "/exe" : exe_.path;
  const FramePointerShare share = frame_pointer_share(program);
  graph = share.keeps_frame_pointers() ? perf::UnwindMode::FramePointers : perf::UnwindMode::Dwarf;
  const std::string name = args_.attach() ? "the process" : exe_.path;
  unwind_reason_ = share.functions == 0
                       ? fmt::format("auto: no function symbols in {} to tell whether it keeps frame pointers", name)
                       : fmt::format("auto: {} of {} functions of {} set up a frame pointer", share.with_frame_pointer,
                                     share.functions, name);
}

perf::SamplingOptions RecordingSession::session_options(size_t threads) {
  perf::SamplingOptions o = stacks_->options();
  if (probes_) probes_->configure(o, threads);
  return o;
}

std::vector<SideSource*> RecordingSession::sides() const {
  std::vector<SideSource*> sides;
  for (Source* s : sources_)
    if (SideSource* side = s->side()) sides.push_back(side);
  return sides;
}

void RecordingSession::drain_perf() {
  const int64_t limit = args_.attach() ? args_.duration_ns : 0;
  perf::RecordSink& sink = probes_ ? probes_->start() : stacks_->collector();
  drain(*stacks_->perf(), sink, sides(), [&] {
    return RecordSignals::interrupted() || (limit > 0 && int64_t(monotonic_ns()) - start_steady_ns_ >= limit);
  });
}

void RecordingSession::build_and_write(Outcome& out) {
  std::optional<Profile> p = build(true);
  stamp(*p, true);
  out.written = write(*p, true);
  if (out.written) say_written(*p, true);
}

// The sources in turn: the first builds the trees, the others add to them. A snapshot is
// the runtime's alone (none before its first).
std::optional<Profile> RecordingSession::build(bool final) {
  Assembly a;
  a.final = final;
  sources_.front()->contribute(a);
  if (!a.profile) return std::nullopt;
  if (final)
    for (size_t i = 1; i < sources_.size(); ++i) sources_[i]->contribute(a);
  return std::move(a.profile);
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
  std::optional<Profile> p = build(false);
  if (!p) return;
  stamp(*p, false);
  if (write(*p, false)) say_written(*p, false);
}

// The "wrote" line (the source the mode is named after says it), then each source's own.
void RecordingSession::say_written(const Profile& p, bool final) const {
  for (const Source* s : sources_)
    if (std::string line = s->written(p, args_.output, final); !line.empty()) reporter_.note(line);
  if (!final) return;
  for (const Source* s : sources_)
    for (const std::string& line : s->details()) reporter_.note(line);
}

}  // namespace callprof::record

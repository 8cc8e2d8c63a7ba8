// `callprof record`: run a program under the exact-mode runtime, then build, symbolize and
// write the profile. The program's streams, exit status and death signal pass through.
#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/record_dumps.h"
#include "cli/record_options.h"
#include "cli/output_file.h"
#include "cli/sample_command.h"
#include "collect/runtime/profile_builder.h"
#include "model/transform/attach_syscalls.h"
#include "target/executable.h"
#include "target/shared_libraries.h"
#include "target/launcher.h"
#include "trace/profile_file.h"
#include "util/strings.h"

namespace callprof::cli {
namespace fs = std::filesystem;

namespace {

Result<std::string> find_runtime() {
  if (const char* env = getenv("CALLPROF_RUNTIME"); env && *env) return std::string(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const char* rel : {"libcallprof-rt.so", "../lib/libcallprof-rt.so"}) {
    fs::path p = exe.parent_path() / rel;
    if (fs::exists(p, ec)) return fs::canonical(p, ec).string();
  }
  return make_error("cannot find libcallprof-rt.so next to the callprof executable (set CALLPROF_RUNTIME)");
}

Result<std::string> choose_mode(const RecordArgs& a, const ExecutableInfo& exe) {
  if (a.mode != "auto" && a.mode != "exact" && a.mode != "sample" && a.mode != "syscall" && a.mode != "probe")
    return make_error("unknown mode '" + a.mode + "' (auto, exact, sample, syscall or probe)");
  if (a.mode == "syscall" || a.mode == "probe") return a.mode;
  if (a.mode == "sample" || (a.mode == "auto" && !exe.has_hooks)) return std::string("sample");
  if (!exe.dynamic && exe.has_hooks)
    return make_error(exe.path + " is statically linked: exact mode loads its runtime with LD_PRELOAD, so link it dynamically "
                      "(or use --mode sample)");
  return std::string("exact");
}

std::string make_temp_dir() {
  const char* tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/callprof-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back(0);
  if (!mkdtemp(buf.data())) return std::string();
  // Absolute, so that a program that changes directory still finds it.
  std::error_code ec;
  return fs::absolute(buf.data(), ec).string();
}

void fill_metadata(Profile& p, const RecordArgs& a, const std::string& mode, int64_t start_realtime, int64_t duration) {
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  p.meta.command = join(a.command);
  p.meta.mode = mode;
  p.meta.hostname = host;
  p.meta.start_realtime_ns = start_realtime;
  p.meta.duration_ns = duration;
  p.meta.callprof_version = CALLPROF_VERSION;
  ExactFacts& x = p.meta.exact ? *p.meta.exact : p.meta.exact.emplace();  // unmatched_exits may be set
  x.offcpu = !a.no_offcpu;
  x.alloc = a.alloc;
  x.faults = a.faults;
  x.libcalls = a.libcalls;
  x.include = join(a.functions.include, " ");
  x.exclude = join(a.functions.exclude, " ");
  x.include_module = join(a.functions.include_modules, " ");
  x.exclude_module = join(a.functions.exclude_modules, " ");
  x.checkpoint = join(a.functions.checkpoints, " ");
  x.max_depth = a.max_depth;
  x.min_duration = a.min_duration;
  x.max_nodes = a.max_nodes;
  if (a.timeline) {
    TimelineFacts& t = p.meta.timeline ? *p.meta.timeline : p.meta.timeline.emplace();  // capacity may be set
    auto min_ns = timeline_min_ns(a);
    t.min_duration_ns = min_ns ? *min_ns : 0;
    if (t.capacity == 0) t.capacity = a.timeline_events;
  }
}

size_t node_count(const Profile& p) {
  size_t n = 0;
  for (const auto& t : p.threads) n += t.tree.size() - 1;
  return n;
}

struct Recording {
  const RecordArgs& args;
  std::string dir, mode;
  int64_t start_realtime = 0;
  std::chrono::steady_clock::time_point start;
  const Profile* syscalls = nullptr;  // --syscalls: the traced calls, attached to the final profile
};

// Builds the profile from what the runtime wrote so far and replaces the output file
// atomically (readers see the old profile or the new one). Returns false after saying why.
bool save_profile(const Recording& r, bool final) {
  const RecordArgs& a = r.args;
  CollectedDumps collected = collect_dumps(r.dir);
  if (!a.quiet && final)
    for (const auto& w : collected.warnings) warn(w);
  if (collected.dumps.empty()) {
    if (!a.quiet && final)
      warn("the program wrote no profile data (was it killed before its first snapshot, or did it never call an "
           "instrumented function?)");
    return false;
  }
  BuildResult built = build_profile(collected.dumps);
  if (!a.quiet && final)
    for (const auto& w : built.warnings) warn(w);
  int64_t duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - r.start).count();
  fill_metadata(built.profile, a, r.mode, r.start_realtime, duration);
  if (final && r.syscalls) attach_syscalls(built.profile, *r.syscalls);
  built.profile.meta.snapshot = !final;
  std::string tmp = a.output + ".tmp";
  if (auto s = write_profile(built.profile, tmp); !s) {
    fail(s.error().message);
    return false;
  }
  std::error_code ec;
  fs::rename(tmp, a.output, ec);
  if (ec) {
    fail("cannot write " + a.output + ": " + ec.message());
    return false;
  }
  if (!a.quiet) {
    const Profile& p = built.profile;
    std::string what = final ? "wrote" : "snapshot:";
    note(fmt::format("{} {}: {} process{}, {} thread{}, {} call paths, {} functions ({:.1f} KiB){}", what, a.output,
                     p.processes.size(), p.processes.size() == 1 ? "" : "es", p.threads.size(),
                     p.threads.size() == 1 ? "" : "s", node_count(p), p.functions.size(),
                     double(fs::file_size(a.output, ec)) / 1024,
                     collected.from_snapshots ? fmt::format(" ({} up to its last snapshot)", collected.from_snapshots)
                                              : std::string()));
  }
  return true;
}

// While the program runs, every new snapshot becomes the output profile.
class SnapshotWatcher {
 public:
  explicit SnapshotWatcher(const Recording& r) : r_(r), thread_([this] { run(); }) {}
  ~SnapshotWatcher() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  void run() {
    std::string seen = snapshot_state(r_.dir);
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) {
      std::string now = snapshot_state(r_.dir);
      if (now == seen) continue;
      seen = now;
      save_profile(r_, false);
    }
  }
  const Recording& r_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

sampling::SamplingOptions side_band_options() {
  sampling::SamplingOptions o;
  o.frequency_hz = 0;
  o.follow_children = true;
  return o;
}

// The system calls of an exact-mode recording, as a profile of their own to attach.
Profile trace_until_exit(ObservedLaunch& observed, SyscallTracing& tracing, bool quiet) {
  sampling::SampleCollector collector(sampling::UnwindMethod::Dwarf);
  observe_until_exit(observed, &tracing, collector);
  std::vector<std::string> warnings;
  Profile p = collector.build(warnings);
  if (!quiet)
    for (const auto& w : warnings) warn(w);
  tracing.annotate(p.meta);
  return p;
}

bool wants_snapshots(const RecordArgs& a) {
  return !a.snapshot_signal.empty() || a.snapshot_interval_ns > 0 || !a.functions.checkpoints.empty();
}

// The instrumented modules the program starts with: filters name functions in them.
Result<std::string> write_function_plan(const RecordArgs& a, const ExecutableInfo& exe, const std::string& dir) {
  if (a.functions.empty()) return std::string();
  std::error_code ec;
  std::vector<std::string> modules{fs::canonical(exe.path, ec).string()};
  if (exe.dynamic) {
    auto libs = shared_libraries(exe.path);
    if (!libs) return libs.error();
    for (const auto& lib : *libs)
      if (auto info = inspect_executable(lib); info && info->has_hooks) modules.push_back(lib);
  }
  auto plan = make_function_plan(modules, a.functions);
  if (!plan) return plan.error();
  std::string path = dir + "/functions.plan";
  std::ofstream(path) << plan->text;
  if (!a.quiet && !a.functions.checkpoints.empty())
    note(fmt::format("{} checkpoint function{}", plan->checkpoints, plan->checkpoints == 1 ? "" : "s"));
  if (!a.quiet && plan->excluded > 0)
    note(fmt::format("filters leave out {} of {} functions", plan->excluded, plan->functions));
  return path;
}

std::string preload_list(const std::string& runtime, bool alloc) {
  std::string list = runtime;
  if (alloc) list += ":" + (fs::path(runtime).parent_path() / "libcallprof-alloc.so").string();
  const char* preload = getenv("LD_PRELOAD");
  if (preload && *preload) list += std::string(":") + preload;
  return list;
}

void report_death(const RecordArgs& a, const ExitStatus& status) {
  if (!status.signaled || a.quiet) return;
  note(fmt::format("the program was killed by signal {} ({}){}", status.signal, sigabbrev_np(status.signal)
                   ? std::string("SIG") + sigabbrev_np(status.signal) : std::string(strsignal(status.signal)),
                   status.signal == SIGKILL ? ": its data ends at its last snapshot (see --snapshot-interval)" : ""));
}

int record(const RecordArgs& a) {
  auto exe = inspect_executable(a.command.front());
  if (!exe) return fail(exe.error().message);
  auto mode = choose_mode(a, *exe);
  if (!mode) return fail(mode.error().message);
  if (Status out = check_output(a.output, exe->path); !out) return fail(out.error().message);
  if (*mode == "sample") return record_sampled(a, *exe, *mode);
  if (*mode == "probe") return record_probed(a, *exe);
  if (*mode == "syscall") {
    RecordArgs traced = a;
    if (!traced.syscalls.enabled()) traced.syscalls.selection = "all";
    return record_sampled(traced, *exe, *mode);
  }
  auto runtime = find_runtime();
  if (!runtime) return fail(runtime.error().message);
  std::string dir = make_temp_dir();
  if (dir.empty()) return fail(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  auto cleanup = [&] {
    std::error_code ec;
    fs::remove_all(dir, ec);
  };
  auto plan = write_function_plan(a, *exe, dir);
  auto env = plan ? runtime_environment(a, *plan) : Result<Environment>(plan.error());
  if (!env) {
    cleanup();
    return fail(env.error().message);
  }
  if (!a.quiet)
    note(exe->has_hooks ? "exact mode: " + exe->path + " has -finstrument-functions hooks"
                        : "exact mode: " + exe->path + " has no hooks itself; profiling the instrumented programs it starts");

  LaunchSpec spec;
  spec.argv = a.command;
  spec.env = {{"CALLPROF_OUTPUT_DIR", dir}};
  spec.env.insert(spec.env.end(), env->begin(), env->end());
  spec.env.push_back({"LD_PRELOAD", preload_list(*runtime, a.alloc)});
  const int64_t start_realtime = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch()).count();
  Recording rec{a, dir, *mode, start_realtime, std::chrono::steady_clock::now()};
  // --syscalls: the tracer and a side-band perf session (mappings, for the stacks) are
  // opened on the program before it execs; exact mode follows children, so they do too.
  std::unique_ptr<SyscallTracing> tracing;
  std::optional<ObservedLaunch> observed;
  if (a.syscalls.enabled()) {
    auto t = SyscallTracing::open(a.syscalls, true);
    auto l = t ? launch_observed(spec, side_band_options(), t->get()) : Result<ObservedLaunch>(t.error());
    if (!l) {
      cleanup();
      return fail(l.error().message);
    }
    tracing = std::move(*t);
    observed.emplace(std::move(*l));
  }
  auto pid = observed ? Result<pid_t>(observed->pid) : launch(spec);
  if (!pid) {
    cleanup();
    return fail(pid.error().message);
  }
  keep_previous(a.output);
  Result<ExitStatus> status = make_error("");
  std::optional<Profile> traced;
  {
    std::optional<SnapshotWatcher> watcher;
    if (wants_snapshots(a)) watcher.emplace(rec);
    if (observed) traced = trace_until_exit(*observed, *tracing, a.quiet);
    if (traced) rec.syscalls = &*traced;
    status = wait_for_exit(*pid);
  }
  bool saved = save_profile(rec, true);
  cleanup();
  if (!status) return fail(status.error().message);
  report_death(a, *status);
  if (!saved && !status->signaled && status->code == 0) return 1;
  exit_like(*status);
}

}  // namespace

Run add_record(CLI::App& app) {
  auto args = std::make_shared<RecordArgs>();
  add_record_options(app, *args);
  app.footer("Example: callprof record -o prog.callprof -- ./prog --input data.txt");
  return [args]() { return record(*args); };
}

}  // namespace callprof::cli

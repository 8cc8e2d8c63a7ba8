#include "record/exact_source.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "model/hook_time.h"
#include "record/runtime_dumps.h"
#include "record/runtime_environment.h"
#include "symbols/elf_compiler.h"
#include "target/descendants.h"
#include "target/preload.h"
#include "target/shared_libraries.h"
#include "target/start_up_libraries.h"
#include "util/clock.h"
#include "util/strings.h"

namespace callprof::record {
namespace fs = std::filesystem;

namespace {

// For a program whose entries the runtime patches: the GOT entries through which the
// program and every library it starts with (libstdc++'s throw above all) enter the C++
// unwinder, as "got PATH" and "u SLOT 0|1 NAME" plan lines: the runtime's stand-ins put the
// replaced return addresses back before a throw walks the stack (docs/attach.md).
std::string unwinder_slot_lines(const std::vector<inject::ModuleSlots>& start_up) {
  std::string out;
  for (const inject::ModuleSlots& m : start_up) {
    std::string lines;
    for (const inject::HookSlot& s : m.slots)
      if (s.unwinding() && s.function != "pthread_cancel")
        lines += fmt::format("u {:x} {} {}\n", s.address, s.read_only ? 1 : 0, s.function);
    if (!lines.empty()) out += "got " + m.path + "\n" + lines;
  }
  return out;
}

// The instrumented modules the program starts with: filters name functions in them, and
// their hook call sites may be rewritten (docs/modes.md, "Removing hooks").
Result<std::string> write_function_plan(const RecordArgs& a, const ExecutableInfo& exe,
                                        const std::vector<inject::ModuleSlots>& start_up, const std::string& dir,
                                        Reporter& reporter) {
  const bool patched = entries_patched(exe) && !a.attach();  // an attach finds its sections in the process
  if (a.functions.empty() && a.keep_hooks && !patched) return std::string();
  std::error_code ec;
  std::vector<std::string> modules{fs::canonical(exe.path, ec).string()};
  if (exe.dynamic) {
    // Hook removal alone can do without the libraries (their hooks are kept), so it takes
    // them from callprof's cache when it can (target/start_up_libraries.h); filters cannot.
    auto libs = a.functions.empty() ? start_up_libraries(exe.path) : shared_libraries(exe.path);
    if (!libs && !a.functions.empty()) return libs.error();
    if (libs)
      for (const auto& lib : *libs)
        if (auto info = inspect_executable(lib); info && (info->has_hooks || (patched && info->patchable)))
          modules.push_back(lib);
  }
  auto plan = make_function_plan(modules, a.functions, PlanSites{!a.keep_hooks, patched});
  if (!plan) return plan.error();
  if (patched) plan->text += unwinder_slot_lines(start_up);
  std::string path = dir + "/functions.plan";
  std::ofstream(path) << plan->text;
  if (!a.functions.checkpoints.empty())
    reporter.note(fmt::format("{} checkpoint function{}", plan->checkpoints, plan->checkpoints == 1 ? "" : "s"));
  if (plan->excluded > 0)
    reporter.note(fmt::format("filters leave out {} of {} functions", plan->excluded, plan->functions));
  return path;
}

// One line saying what the runtime could not record (calls dropped or beyond --max-depth,
// lost context-switch records, unmatched returns) and why; "" when it recorded everything.
std::string unrecorded_warning(const BuildResult& built) {
  uint64_t dropped = 0, limited = 0, lost = 0;
  for (const Thread& t : built.profile.threads) {
    dropped += t.dropped_calls;
    limited += t.depth_limited_calls;
    lost += t.lost_events;
  }
  std::vector<std::string> parts;
  if (dropped)
    parts.push_back(
        fmt::format("{} calls dropped (a thread's shadow stack or node budget was full: "
                    "CALLPROF_STACK_FRAMES, --max-nodes)",
                    dropped));
  if (limited) parts.push_back(fmt::format("{} calls deeper than --max-depth", limited));
  if (lost) parts.push_back(fmt::format("{} context-switch records lost (off-CPU times are lower bounds)", lost));
  if (built.unmatched_exits)
    parts.push_back(
        fmt::format("{} returns without a recorded entry (code that left frames in a way the "
                    "runtime did not see)",
                    built.unmatched_exits));
  if (parts.empty()) return "";
  return "not everything was recorded: " + join(parts, "; ") + "; `report --view threads` shows which threads";
}

// Exact mode's facts (the options it ran with) into the metadata; keeps what the build set.
void stamp_exact_facts(Metadata& meta, const RecordArgs& a) {
  ExactFacts& x = meta.exact ? *meta.exact : meta.exact.emplace();  // unmatched_exits may be set
  x.offcpu = !a.no_offcpu;
  x.alloc = a.alloc;
  x.faults = a.faults;
  x.libcalls = a.libcalls;
  x.ordered_clock = a.ordered_clock;
  x.auto_fold = kAutoFoldScopeNames[size_t(a.auto_fold)];
  x.include = join(a.functions.include, " ");
  x.exclude = join(a.functions.exclude, " ");
  x.include_module = join(a.functions.include_modules, " ");
  x.exclude_module = join(a.functions.exclude_modules, " ");
  x.checkpoint = join(a.functions.checkpoints, " ");
  x.max_depth = a.max_depth;
  x.min_duration = a.min_duration;
  x.max_nodes = a.max_nodes;
  if (a.timeline) {
    TimelineFacts& t = meta.timeline ? *meta.timeline : meta.timeline.emplace();  // capacity may be set
    auto min_ns = timeline_min_ns(a);
    t.min_duration_ns = min_ns ? *min_ns : 0;
    if (t.capacity == 0) t.capacity = a.timeline_events;
  }
}

}  // namespace

Result<std::unique_ptr<ExactSource>> ExactSource::prepare(const RecordArgs& args, const ExecutableInfo& exe,
                                                          const std::vector<inject::ModuleSlots>& start_up,
                                                          Reporter& reporter) {
  auto runtime = find_runtime();
  if (!runtime) return runtime.error();
  if (args.alloc)  // without it the program would run and --alloc count nothing
    if (std::error_code ec; !std::filesystem::exists(alloc_library(*runtime), ec))
      return make_error("--alloc needs " + alloc_library(*runtime) +
                        ", which is missing (install it beside the runtime)");
  auto dir = TempDir::create();
  if (!dir) return dir.error();
  std::unique_ptr<ExactSource> source(new ExactSource(args, std::move(*dir), reporter));
  source->runtime_ = *runtime;
  auto plan = write_function_plan(args, exe, start_up, source->dir_.path(), reporter);
  if (!plan) return plan.error();
  auto env = runtime_environment(args, *plan);
  if (!env) return env.error();
  source->env_ = std::move(*env);
  // The runtime measures only the hooks of the compiler that built the executable, the
  // constants the profile uses (a third of a short recording's fixed cost is measuring),
  // or takes them from the cache of earlier recordings (calibration_cache.h).
  std::error_code ec;
  const std::string exe_path = std::filesystem::canonical(exe.path, ec).string();
  uint32_t sets = (1u << wire::kHooksGcc) | (1u << wire::kHooksClang);
  if (const std::string cc = elf_compiler(exe.path); !cc.empty() && !ec) {
    source->env_.push_back({"CALLPROF_CALIBRATE", cc + ":" + exe_path});
    sets = 1u << (cc == "clang" ? wire::kHooksClang : wire::kHooksGcc);
  }
  source->calibration_cache_ = CalibrationCache::open(
      *runtime, sets, {.ordered_clock = args.ordered_clock, .sampled = args.exact_sample_hz() > 0});
  if (!args.recalibrate) source->calibration_cache_.seed(source->dir_.path(), measurement_due());
  return source;
}

void ExactSource::add_environment(LaunchSpec& spec) const {
  spec.env.push_back({"CALLPROF_OUTPUT_DIR", dir_.path()});
  spec.env.insert(spec.env.end(), env_.begin(), env_.end());
  spec.env.push_back({"LD_PRELOAD", preload_list(runtime_, args_.alloc)});
}

bool ExactSource::wants_snapshots() const {
  return !args_.snapshot_signal.empty() || args_.snapshot_interval_ns > 0 || !args_.functions.checkpoints.empty();
}

std::string ExactSource::snapshot_state() const { return record::snapshot_state(dir_.path()); }

ExactSource::Collected ExactSource::collect(const std::vector<NodeSample>& samples) const {
  CollectedDumps dumps = collect_dumps(dir_.path());
  Collected c;
  c.warnings = std::move(dumps.warnings);
  c.from_snapshots = dumps.from_snapshots;
  c.empty = dumps.dumps.empty();
  for (RawProcessDump& d : dumps.dumps)
    if (pid_t(d.header.pid) == args_.pid && d.header.snapshot_seq == 0) {
      c.threads_without_hooks += add_unmet_threads(d, unmet_threads_);
      mark_attach_tops(d, attach_frames_);
    }
  for (const RawProcessDump& d : dumps.dumps)
    if (d.header.runtime_tid) c.runtime_tids.push_back(d.header.runtime_tid);
  if (!c.empty) c.built = build_profile(std::move(dumps.dumps), samples);
  if (auto w = unrecorded_warning(c.built); !w.empty()) c.warnings.push_back(std::move(w));
  return c;
}

void ExactSource::target_ended() {
  if (args_.attach()) return;
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

void ExactSource::contribute(Assembly& a) {
  // The samples only at the end: the drain loop adds to them while snapshots are written.
  const uint64_t started = monotonic_ns();
  Collected c = collect(a.final && samples_ ? samples_->samples() : std::vector<NodeSample>{});
  build_ns_ = monotonic_ns() - started;
  if (c.empty) {
    if (!a.final) return;  // no snapshot yet
    c.warnings.push_back(
        "the program wrote no profile data (was it killed before its first snapshot, or did it "
        "never call an instrumented function?)");
  }
  if (a.final) {
    c.warnings.insert(c.warnings.end(), unfollowed_.begin(), unfollowed_.end());
    for (const auto& w : c.warnings) reporter_.warn(w);
    for (const auto& w : c.built.warnings) reporter_.warn(w);
  }
  Metadata& meta = c.built.profile.meta;
  meta.warnings.insert(meta.warnings.end(), c.warnings.begin(), c.warnings.end());
  stamp_exact_facts(meta, args_);
  // Without compensation the runtime uses no hook costs: the seeded file says nothing of them.
  if (a.final && !args_.raw_clock) {
    const CalibrationReport calibration = calibration_cache_.learn_from(dir_.path());
    meta.exact->calibration = calibration_outcome_name(calibration.outcome);
    meta.exact->calibration_change_at_exit = calibration.change_at_exit;
  }
  if (const HookTime h = a.final ? hook_time(c.built.profile) : HookTime{};
      h.hook_ns > 0 && h.hook_ns >= 0.5 * h.recorded_ns)
    cost_note_ = fmt::format(
        "the hooks took about {:.0f} % of the threads' time ({} calls through them): the report's `# cost:` line "
        "says more (docs/modes.md, \"What the hooks cost\")",
        100 * h.hook_ns / h.recorded_ns, h.hooked_calls);
  if (attached_) {
    meta.exact->attached = true;
    meta.exact->frames_open_at_attach = attached_->open_frames;
    meta.exact->threads_open_at_attach = attached_->threads_with_open_frames;
    meta.exact->threads_without_hooks = c.threads_without_hooks;
  }
  from_snapshots_ = c.from_snapshots;
  a.profile = std::move(c.built.profile);
  a.thread_nodes = std::move(c.built.thread_nodes);
  a.runtime_tids = std::move(c.runtime_tids);
  a.node_samples = c.built.samples;
}

std::vector<std::string> ExactSource::details() const {
  if (cost_note_.empty()) return {};
  return {cost_note_};
}

std::string ExactSource::written(const Profile& p, const std::string& path, bool final) const {
  size_t paths = 0;
  for (const auto& t : p.threads) paths += t.tree.size() - 1;
  std::error_code ec;
  return fmt::format(
      "{} {}: {} process{}, {} thread{}, {} call paths, {} functions ({:.1f} KiB){}; reading, symbolizing and "
      "building {:.1f} ms",
      final ? "wrote" : "snapshot:", path, p.processes.size(), p.processes.size() == 1 ? "" : "es", p.threads.size(),
      p.threads.size() == 1 ? "" : "s", paths, p.functions.size(), double(fs::file_size(path, ec)) / 1024,
      from_snapshots_ ? fmt::format(" ({} up to its last snapshot)", from_snapshots_) : std::string(),
      double(build_ns_) / 1e6);
}

}  // namespace callprof::record

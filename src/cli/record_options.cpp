#include "cli/record_options.h"

#include <iterator>

#include "cli/number_options.h"
#include "cli/symbol_options.h"

namespace callprof::cli {
namespace {

// An option whose value is one of `names`, setting `out` to the enumerator of that index.
template <typename Enum, size_t N>
CLI::Option* add_choice_option(CLI::App& app, const char* name, Enum& out, const char* const (&names)[N],
                               const char* type, const std::string& help) {
  return app
      .add_option_function<std::string>(
          name,
          [&out, &names](const std::string& given) {
            for (size_t i = 0; i < N; ++i)
              if (given == names[i]) out = Enum(i);
          },
          help)
      ->type_name(type)
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(names), std::end(names))));
}

}  // namespace

void add_record_options(CLI::App& app, RecordCli& cli) {
  record::RecordArgs& a = cli.args;
  app.add_option("-o,--output", a.output, "Profile file to write")->type_name("FILE")->capture_default_str();
  app.add_option(
         "--mode", cli.mode,
         "auto | exact | sample | syscall | probe (auto: exact when the program has hooks or patchable entries, else "
         "sample; "
         "syscall: system calls only; probe: uprobes on the functions --probe names)")
      ->type_name("MODE")
      ->capture_default_str();
  app.add_flag("-q,--quiet", cli.quiet, "Print nothing of our own (errors excepted)");
  add_symbol_options(app);
  add_exact_options(app, a, false);
  auto* snapshots = "Snapshots (exact mode)";
  app.add_option("--snapshot-signal", a.snapshot_signal,
                 "Write a snapshot when the program gets this signal (e.g. USR2)")
      ->type_name("SIGNAL")
      ->group(snapshots);
  add_seconds_option(app, "--snapshot-interval", a.snapshot_interval_ns, "Write a snapshot every TIME seconds", false)
      ->group(snapshots);
  app.add_option("--checkpoint", a.functions.checkpoints,
                 "Write a snapshot each time this function returns (repeatable)")
      ->type_name("FUNCTION")
      ->allow_extra_args(false)
      ->group(snapshots);
  add_sampling_options(app, a.sampling);
  add_syscall_options(app, a.syscalls);
  add_probe_options(app, a.probes);
  add_timeline_options(app, a);
  // Not ->required(): without a program, the run says how to give one (CLI11 would say
  // "command is required").
  app.add_option("PROG", a.command, "The program to run and its arguments (after --)")->type_name("");
  app.positionals_at_end();
}

void add_exact_options(CLI::App& app, record::RecordArgs& a, bool attached) {
  auto* what = "What to measure (exact mode)";
  app.add_flag("--no-offcpu", a.no_offcpu, "Do not split time into on-CPU and off-CPU")->group(what);
  if (!attached) {  // they need the program started under callprof (LD_PRELOAD, its PLT at start)
    app.add_flag("--faults", a.faults, "Count page faults per call path")->group(what);
    app.add_flag("--alloc", a.alloc, "Count allocations and bytes per call path (malloc family, new/delete)")
        ->group(what);
    app.add_flag("--libcalls", a.libcalls, "Calls into libraries (libc, libstdc++, ...) become their own nodes")
        ->group(what);
  }
  app.add_flag("--no-compensation", a.raw_clock, "Do not measure the hooks' own cost (report --raw shows raw times)")
      ->group(what);
  app.add_flag("--recalibrate", a.recalibrate,
               "Measure the hooks' own cost in this recording, not taking it from earlier recordings on this "
               "machine (the cache checks it first; docs/modes.md)")
      ->group(what);
  auto* fold =
      add_choice_option(app, "--auto-fold", a.auto_fold, record::kAutoFoldScopeNames, "SCOPE",
                        "Functions whose calls are consistently tiny, folded into their callers as inlined code and "
                        "listed: inlined (the compiler's inlined copies, the default) | all (any such leaf: "
                        "faster, its time goes to its callers) | wrappers (also any function whose own time per call "
                        "is tiny, whatever its callees take: they then appear under its callers) | off")
          ->group(what);
  app.add_flag_callback(
         "--no-auto-fold", [&a] { a.auto_fold = record::AutoFoldScope::Off; },
         "Keep hooking functions whose calls are consistently tiny (--auto-fold off)")
      ->excludes(fold)
      ->group(what);
  auto* keep = app.add_flag("--keep-hooks", a.keep_hooks,
                            "Keep the hook calls of folded and filtered-out functions, so that every call of them is "
                            "counted on its path (by default they are rewritten as they are met: a folded function's "
                            "real calls then cost about 1.5 ns and are counted per function, its inlined copies' and "
                            "a filtered-out function's cost nothing and are not counted)")
                   ->group(what);
  if (!attached) {  // attached, they are nops anyway
    auto* counts = add_choice_option(app, "--fold-counts", a.fold_counts, record::kFoldCountsNames, "WHICH",
                                     "What a folded function's rewritten entries count: called (its real calls, per "
                                     "function, about 1.5 ns each; its inlined copies, no calls in the program built "
                                     "without hooks, become nops: the default) | all (its inlined copies' runs too) | "
                                     "none (every entry a nop)")
                       ->excludes(keep)
                       ->group(what);
    app.add_flag_callback(
           "--uncounted-folds", [&a] { a.fold_counts = record::FoldCounts::None; },
           "Rewrite every entry hook call of a folded function into a nop: its calls from then on cost nothing and are "
           "not counted (--fold-counts none)")
        ->excludes(keep)
        ->excludes(counts)
        ->group(what);
  }
  app.add_flag("--ordered-clock", a.ordered_clock,
               "At each return, read the clock only once the function's own work is done (lfence): time a "
               "function spends waiting on memory stays its own instead of going to its caller; costs every call")
      ->group(what);
  auto* filters = "Filters and limits (exact mode)";
  app.add_option("--include", a.functions.include, "Record only functions whose name matches (regex; repeatable)")
      ->type_name("REGEX")
      ->allow_extra_args(false)
      ->group(filters);
  app.add_option("--exclude", a.functions.exclude, "Do not record functions whose name matches (regex; repeatable)")
      ->type_name("REGEX")
      ->allow_extra_args(false)
      ->group(filters);
  app.add_option("--include-module", a.functions.include_modules,
                 "Record only functions of modules whose path matches (regex; repeatable)")
      ->type_name("REGEX")
      ->allow_extra_args(false)
      ->group(filters);
  app.add_option("--exclude-module", a.functions.exclude_modules,
                 "Do not record functions of modules whose path matches (regex; repeatable)")
      ->type_name("REGEX")
      ->allow_extra_args(false)
      ->group(filters);
  add_count_option(app, "--max-depth", a.max_depth, "Do not record calls deeper than this (0: no limit)")
      ->group(filters);
  add_duration_option(app, "--min-duration", a.min_duration, "Do not record calls shorter than this (e.g. 1us, 2ms)")
      ->group(filters);
  add_count_option(app, "--max-nodes", a.max_nodes, "Call paths kept per thread before small ones are pruned", 1024,
                   UINT32_MAX)
      ->default_str("1048576")  // the runtime's (runtime/config.h), which 0 leaves in place
      ->group(filters);
}

void add_timeline_options(CLI::App& app, record::RecordArgs& a) {
  auto* group = "Timeline (chrome export: exact mode's calls, sampled stacks' and system calls' times)";
  app.add_flag("--timeline", a.timeline, "Keep when calls happened, per thread (export --format chrome)")->group(group);
  add_duration_option(app, "--timeline-min-duration", a.timeline_min_duration,
                      "Calls shorter than this stay off the timeline (0: every call)", true)
      ->default_str(a.timeline_min_duration)
      ->group(group);
  add_count_option(app, "--timeline-events", a.timeline_events,
                   "Events kept per thread; older ones are dropped and counted", 1, 1u << 24)
      ->group(group);
}

void add_sampling_options(CLI::App& app, record::SamplingArgs& s) {
  auto* group = "Sampling (sample mode and attach)";
  add_count_option(app, "-F,--freq", s.frequency, "Samples per second of CPU time per thread", 1, 100000)
      ->type_name("HZ")
      ->group(group);
  app.add_option_function<std::string>(
         "-e,--event",
         [&s](const std::string& name) {
           using perf::SampleEvent;
           for (SampleEvent e : {SampleEvent::CpuClock, SampleEvent::Cycles, SampleEvent::Instructions,
                                 SampleEvent::CacheMisses, SampleEvent::BranchMisses})
             if (name == to_string(e)) s.event = e;
         },
         "What triggers a sample: cpu-clock, or a hardware counter where the machine "
         "has one (cycles, instructions, cache-misses, branch-misses)")
      ->type_name("EVENT")
      ->default_str(to_string(s.event))
      ->check(CLI::IsMember({"cpu-clock", "cycles", "instructions", "cache-misses", "branch-misses"}))
      ->group(group);
  app.add_option_function<std::string>(
         "--call-graph",
         [&s](const std::string& mode) {
           if (mode == "auto")
             s.call_graph.reset();
           else
             s.call_graph = mode == "dwarf" ? perf::UnwindMode::Dwarf : perf::UnwindMode::FramePointers;
         },
         "auto (dwarf unless the program keeps frame pointers) | fp (frame pointers) | dwarf (copy the user "
         "stack, unwind with CFI)")
      ->type_name("MODE")
      ->default_str("auto")
      ->check(CLI::IsMember({"auto", "fp", "dwarf"}))
      ->group(group);
  add_count_option(app, "--stack-bytes", s.stack_bytes, "dwarf: bytes of user stack copied per sample", 256, 65000)
      ->type_name("SIZE")
      ->group(group);
  app.add_flag("--off-cpu", s.off_cpu, "Also record where threads block and for how long (switch-outs with stacks)")
      ->group(group);
  app.add_flag("--no-kernel", s.no_kernel, "Leave kernel frames out of the stacks")->group(group);
  app.add_flag("--no-inline", s.no_inline,
               "Attribute to the function the code belongs to (as perf --no-inline): no frames for the functions "
               "the compiler inlined into it")
      ->group(group);
  app.add_flag("--children", s.children, "Also profile the child processes it forks, and theirs")->group(group);
}

void add_probe_options(CLI::App& app, record::ProbeArgs& p) {
  auto* group = "Probes (probe mode: uprobes on an unmodified binary)";
  app.add_option("--probe", p.functions,
                 "Probe the functions whose name matches this regular expression (RE2; repeatable): exact call counts "
                 "and durations, callers from the stack at entry")
      ->type_name("REGEX")
      ->group(group);
  app.add_option("--probe-module", p.modules,
                 "Only in the modules (executable, libraries) whose path matches this regular expression")
      ->type_name("REGEX")
      ->group(group);
  add_count_option(app, "--probe-limit", p.limit, "Probe at most this many functions (the first ones found)", 1, 20000)
      ->group(group);
  app.add_flag("--no-return-probes", p.no_return_probes,
               "Probe the rets of leaf functions too, instead of a cheaper return probe (uretprobe) that puts the "
               "kernel's trampoline on the stack while they run (docs/probes.md)")
      ->group(group);
  add_real_option(app, "--probe-budget", p.budget_percent,
                  "Time the probes may add, in % of the program's own (estimated from each hit's measured cost, "
                  "every 0.1 s): past it, the functions that cost most stop being probed, with a warning; 0: never",
                  0, 1e6)
      ->type_name("PCT")
      ->group(group);
}

void add_syscall_options(CLI::App& app, record::SyscallArgs& s) {
  auto* group = "System calls (with any mode)";
  app.add_option("--syscalls", s.selection,
                 "Trace these system calls: names and classes (file, network, process, memory, ipc, signal, time, "
                 "blocking, all), comma-separated; !name leaves one out")
      ->type_name("LIST")
      ->group(group);
  app.add_option("--syscall-stacks", s.stacks, "none | user (the program's stack at entry) | full (also the kernel's)")
      ->type_name("STACKS")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "user", "full"}))
      ->group(group);
  add_count_option(app, "--syscall-stack-bytes", s.window_bytes,
                   "User stack copied at each call's entry and unwound by CFI: more reaches further up a program "
                   "without frame pointers, at ~0.1 µs per KiB",
                   0, 8192)
      ->type_name("SIZE")
      ->group(group);
}

std::vector<std::string> given_options(const CLI::App& app) {
  std::vector<std::string> given;
  for (const CLI::Option* o : app.get_options())
    if (o->count() > 0 && !o->get_lnames().empty()) given.push_back("--" + o->get_lnames().front());
  return given;
}

}  // namespace callprof::cli

// What a recording is asked to do, as plain typed structs: the CLI fills them from its
// options (src/cli/record_options.cpp) and the session (session.h) carries them out.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/perf/perf_options.h"
#include "collect/runtime/function_plan.h"
#include "model/recording_mode.h"
#include "util/result.h"

namespace callprof::record {

// The sources a recording runs. Probe mode's hits (uprobes, collect/probes) share the perf
// session's rings and the drain loop of sample and syscall modes.
using Mode = RecordingMode;

inline std::string_view mode_name(Mode mode) { return recording_mode_name(mode); }
// "auto" gives no mode (chosen from the program: exact when it has hooks, else sample).
Result<std::optional<Mode>> parse_mode(const std::string& name);

// Sampling mode (record --mode sample, attach).
struct SamplingArgs {
  uint64_t frequency = 999;  // Hz
  perf::SampleEvent event = perf::SampleEvent::CpuClock;
  // --call-graph fp | dwarf; none: auto (dwarf unless the program keeps frame pointers), until
  // the session chose.
  std::optional<perf::UnwindMode> call_graph;
  uint32_t stack_bytes = 8192;  // dwarf: user stack copied per sample
  bool off_cpu = false;         // also sample every switch-out (time blocked, with stacks)
  bool no_kernel = false;       // leave kernel frames out
  bool no_inline = false;       // name each address by its function only, not its inline chain
  bool children = false;        // also profile the processes the target forks
};

// System-call tracing (--syscalls, with any mode).
struct SyscallArgs {
  std::string selection;        // names and classes, "" = not traced
  std::string stacks = "user";  // none | user | full
  uint32_t window_bytes = 256;  // user stack copied at entry, for the caller of a libc wrapper
  bool enabled() const { return !selection.empty(); }
};

// Probe mode (record --mode probe, attach --mode probe).
struct ProbeArgs {
  std::vector<std::string> functions;  // --probe: RE2 patterns on function names
  std::string modules;                 // --probe-module: RE2 pattern on module paths
  uint32_t limit = 1000;               // functions probed at most
  bool no_return_probes = false;       // leaves too get exit probes, not a return probe (uretprobe)
  // Added time allowed, in % of the program's own: past it, the costliest functions stop
  // being probed while it runs (collect/probes/probe_budget.h); 0: no budget.
  double budget_percent = 10;
};

// Which tiny functions the runtime folds into their callers (docs/modes.md, "Tiny functions
// folded at run time"): none, inlined copies (the default), any leaf, or any function whose
// own time is tiny (wrappers too). The values are the runtime's CALLPROF_AUTO_FOLD.
enum class AutoFoldScope : uint8_t { Off, Inlined, All, Wrappers };
inline constexpr const char* kAutoFoldScopeNames[] = {"off", "inlined", "all", "wrappers"};
// What a folded function's rewritten entries count (--fold-counts; wire::kFoldCounts*, same
// order): nothing, its real calls, or its inlined copies' runs too.
enum class FoldCounts : uint8_t { None, Called, All };
inline constexpr const char* kFoldCountsNames[] = {"none", "called", "all"};

struct RecordArgs {
  std::string output = "callprof.data";
  std::optional<Mode> mode;  // none: auto
  // Exact mode.
  bool no_offcpu = false;
  bool faults = false;
  bool alloc = false;
  bool libcalls = false;
  bool raw_clock = false;                            // --no-compensation: do not calibrate the hooks
  bool recalibrate = false;                          // --recalibrate: measure, whatever the cache holds
  AutoFoldScope auto_fold = AutoFoldScope::Inlined;  // --auto-fold, --no-auto-fold
  bool keep_hooks = false;                      // --keep-hooks: folded and filtered-out functions keep their hook calls
  FoldCounts fold_counts = FoldCounts::Called;  // --fold-counts, --uncounted-folds (none)
  bool ordered_clock = false;  // --ordered-clock: returns wait for the callee's work before reading the clock
  FunctionSelection functions;
  uint32_t max_depth = 0;                      // 0: no limit
  std::string min_duration;                    // e.g. "10us"; "" none
  uint32_t max_nodes = 0;                      // 0: the runtime's default
  std::string snapshot_signal;                 // "USR2", "SIGUSR2" or a number; "" none
  int64_t snapshot_interval_ns = 0;            // 0 none
  bool timeline = false;                       // keep a per-thread timeline of calls (samples in sample mode)
  std::string timeline_min_duration = "10us";  // shorter calls stay off it (exact mode)
  uint32_t timeline_events = 1u << 16;         // per thread; older events are dropped and counted
  SamplingArgs sampling;
  SyscallArgs syscalls;
  ProbeArgs probes;
  // The target: a program to launch, or (attach) a running process.
  std::vector<std::string> command;
  pid_t pid = 0;            // attach when non-zero (command empty)
  int64_t duration_ns = 0;  // attach: 0 = until Ctrl-C or the process exits
  // The options the user gave (long names, "--alloc"), checked against the mode.
  std::vector<std::string> given;
  bool attach() const { return pid != 0; }
  // Exact mode samples only when -F is given: the samples' rate, else 0 (docs/modes.md,
  // "Samples inside exact mode").
  uint32_t exact_sample_hz() const {
    return std::find(given.begin(), given.end(), "--freq") != given.end() ? uint32_t(sampling.frequency) : 0;
  }
};

}  // namespace callprof::record

// The profile: everything one recording produced, in one self-contained model
// (names, files and lines are stored, so no binary is needed to read it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/call_tree.h"
#include "model/code_lines.h"
#include "model/recording_mode.h"
#include "model/syscall_stats.h"
#include "model/timeline.h"

namespace callprof {

using ModuleId = uint32_t;
inline constexpr ModuleId kNoModule = UINT32_MAX;

struct Module {
  std::string path;
  std::string build_id;  // lowercase hex, empty when the file has none
};

// What a function node stands for. Synthetic frames are told apart by their kind, never
// by their name, which is only a label for people.
enum class FunctionKind : uint8_t {
  Normal,       // a function of the program or a library
  Syscall,      // a traced system call's leaf, named "[syscall] NAME"
  Kernel,       // a kernel function (sampled kernel stacks)
  Pruned,       // "[pruned]": subtrees folded to bound memory
  Truncated,    // "[truncated]": the stack could not be unwound to its root
  ThreadGroup,  // "[N threads] R": threads merged by start routine
  // "[unhooked calls]": calls of folded functions through counting stubs after their hooks
  // were removed (docs/modes.md, "Removing hooks"), counted per function, not on a path.
  Unhooked,
};
inline constexpr size_t kFunctionKindCount = 7;
// Stable lowercase names used in JSON and docs: "function", "syscall", "kernel", ...
std::string_view function_kind_name(FunctionKind k);

struct Function {
  std::string name;          // demangled when it could be
  std::string linkage_name;  // the ELF symbol, or "" when the address had none
  ModuleId module = kNoModule;
  uint64_t address = 0;  // entry address relative to the module's file (ELF vaddr)
  std::string file;      // source file, "" when unknown
  uint32_t line = 0;     // source line of the entry, 0 when unknown
  FunctionKind kind = FunctionKind::Normal;
};

struct Process {
  std::string host;  // "" (the recording's own host) except in merged profiles
  uint32_t pid = 0;
  uint32_t ppid = 0;     // the parent process, 0 when it is not in the profile
  uint32_t image = 0;    // 0: as forked; n: after its n-th exec (same pid)
  std::string command;   // argv joined by spaces
  int64_t start_ns = 0;  // CLOCK_MONOTONIC
  int64_t end_ns = 0;
  int death_signal = 0;  // the signal that killed it, 0 when it exited
  bool complete = true;  // false: data only up to its last snapshot
  // Overhead compensation measured by the runtime at start-up (exact mode): the hooks'
  // cost per call inside the callee's self time, in the caller's self time, and for a
  // call of an excluded function (in the caller's self time). Zero: not measured.
  double hook_inner_ns = 0;
  double hook_outer_ns = 0;
  double excluded_hook_ns = 0;
  double folded_hook_ns = 0;  // a call of a function folded at run time (auto-fold), in the caller's self time
  // The whole cost of a call (inner + outer) where it measured differently: a call of a
  // function that has callees, and a recursive call (docs/design.md, "Compensation").
  // Zero: not measured (older profiles): the leaf's constants apply.
  double hook_caller_ns = 0;
  double hook_recursive_ns = 0;
  std::string hook_compiler;  // whose hooks the constants are for: "gcc", "clang" or ""
  // Auto-fold's threshold: call paths whose average self time (hooks included) stayed
  // below it had their function folded (Metric::FoldedCalls); 0: auto-fold was off.
  double auto_fold_ns = 0;
  // Hook removal (exact mode, unless record --keep-hooks): the hook call sites rewritten
  // into nops, and mprotect's error when the system refused writable code (0: it did not).
  bool hook_removal = false;
  uint32_t rewritten_sites = 0;
  int rewrite_refused_errno = 0;
  // Of the rewritten sites, the entry hook calls of removed folded functions that now call a
  // counting stub (their calls counted per function, under "[unhooked calls]"), and those
  // that became nops because no stub was within reach (their calls since not counted).
  uint32_t counting_sites = 0;
  uint32_t uncounted_sites = 0;
  // The runtime counted those calls (per function: record without --uncounted-folds, not
  // attached), but for the uncounted sites'; false in files from before counting stubs.
  bool counts_unhooked_calls = false;
  // The folded functions removed for the whole process, in order: from at_ns on
  // (CLOCK_MONOTONIC), their calls ran through rewritten hook calls (counting_sites).
  struct RemovedHooks {
    FunctionId function = kNoFunction;
    int64_t at_ns = 0;
    // Entries of its inlined copies became nops (record --fold-counts called): only its real
    // calls were counted since.
    bool inlined_copies_uncounted = false;
  };
  std::vector<RemovedHooks> removed_hooks;
};

struct Thread {
  uint32_t tid = 0;
  uint32_t pid = 0;
  std::string host;  // as Process::host
  std::string name;
  uint32_t creator_tid = 0;              // 0: not created by a profiled thread
  std::vector<FunctionId> creator_path;  // the call path in the creator that created it
  FunctionId start_routine = kNoFunction;
  int64_t start_ns = 0;  // CLOCK_MONOTONIC
  int64_t end_ns = 0;
  bool finished = false;             // false: still running when the data was taken
  uint64_t dropped_calls = 0;        // calls not recorded (node or stack budget exhausted)
  uint64_t depth_limited_calls = 0;  // calls not recorded: deeper than --max-depth
  uint64_t short_calls = 0;          // calls not recorded: shorter than --min-duration
  uint64_t lost_events = 0;          // context-switch/fault records lost (off-CPU incomplete)
  uint32_t prunes = 0;               // times the node budget forced a prune
  enum class OffCpu : uint8_t { Off, Measured, Unavailable };
  OffCpu offcpu = OffCpu::Off;
  CallTree tree;
  std::vector<SyscallStats> syscalls;  // traced system calls, by number (--syscalls)
  Timeline timeline;                   // when calls/samples happened (record --timeline)
  CodeCosts code;                      // samples by instruction, call sites (code_lines.h)
};

// What exact mode was asked to do (record options), and what it could not match.
struct ExactFacts {
  bool offcpu = true;
  bool alloc = false;
  bool faults = false;
  bool libcalls = false;
  bool ordered_clock = false;  // record --ordered-clock
  std::string auto_fold{};     // record --auto-fold: "inlined", "all", "wrappers" or "off"; "" in older profiles
  std::string include{}, exclude{}, include_module{}, exclude_module{}, checkpoint{};  // space-separated
  uint32_t max_depth = 0;                                                              // 0: no limit
  std::string min_duration{};                                                          // as given, "" when none
  uint64_t max_nodes = 0;                                                              // 0: no budget
  uint64_t unmatched_exits = 0;  // exit hooks that found no matching entry
  // The hooks' costs: "measured" in this recording, "cached" (earlier recordings' on this
  // machine, checked in this one: record/calibration_cache.h), "unchecked" (theirs, the hooks
  // too cheap for a check to matter), "" none or not known.
  std::string calibration{};
  // How far the hooks' cost moved between their measurement and a process's exit, the
  // largest change seen (+0.24: 24 % slower at the exit); none when not checked again.
  std::optional<double> calibration_change_at_exit{};
  // attach --mode exact: the frames open on the threads' stacks when the window began (their
  // time counts from then, their calls are not counted), and in how many threads.
  bool attached = false;
  uint64_t frames_open_at_attach = 0;
  uint64_t threads_open_at_attach = 0;
  // Of those threads, the ones that called no hooked function in the window: there with
  // their frames for the whole window, off the CPU by the kernel's count (unmet_threads.h).
  uint64_t threads_without_hooks = 0;
};

// How a sampled recording sampled, and what it lost.
struct SamplingFacts {
  std::string event = "cpu-clock";
  uint64_t frequency_hz = 0;
  Unwinding unwind = Unwinding::Unknown;
  std::string unwind_reason{};  // why, when --call-graph auto chose (else "")
  uint64_t samples = 0;
  uint64_t off_cpu_samples = 0;
  uint64_t incomplete_stacks = 0;  // the unwinder did not prove the root (CFI): every fp stack
  uint64_t lost_records = 0;
  uint64_t lost_samples = 0;
  // Samples (on- and off-CPU) whose stack did not reach a root (process entry, thread start):
  // they hang under a `[truncated]` node of their thread.
  uint64_t truncated_stacks = 0;
  bool inlined_frames = true;  // false: record --no-inline (each address named by its function only)
  // Samples inside exact mode (unwind "shadow-stack"): of `samples`, those in callprof's
  // runtime (the profiler's own cost, in no tree) and those whose thread wrote no data.
  uint64_t runtime_samples = 0;
  uint64_t unplaced_samples = 0;
};

// What system-call tracing selected, and what it lost.
struct SyscallFacts {
  std::string selection{};   // as given: names and classes
  std::string stacks{};      // none | user | full
  uint64_t events = 0;       // calls traced
  uint64_t lost_events = 0;  // ring full
  uint64_t stack_failures = 0;
  uint64_t unrecorded = 0;      // calls whose entry could not be kept
  uint64_t unpaired_exits = 0;  // calls in flight when tracing began
  // Exact mode: calls placed under their caller by the runtime's shadow stack (no stack
  // unwound), and of those, calls whose node was gone from the dump (hung at the root).
  uint64_t exact_callers = 0;
  uint64_t exact_callers_unplaced = 0;
};

// A function whose probes the budget removed while the program ran (record --probe-budget).
struct StoppedProbe {
  std::string function;
  uint64_t at_ns = 0;        // when, from the start of the recording
  uint64_t calls = 0;        // its calls counted until then
  double added_percent = 0;  // what its hits added to the run, in the window that decided
};

// What probe mode probed, what it saw, and what the probes cost (measured at start).
struct ProbeFacts {
  std::string functions{};            // the --probe patterns, space-separated
  std::string modules{};              // the --probe-module pattern, "" for every module
  uint64_t probed = 0;                // functions probed
  uint64_t sites = 0;                 // uprobes placed (entries and exits)
  uint64_t refused_sites = 0;         // left out: the kernel cannot probe that instruction
  uint64_t entries = 0, exits = 0;    // hits
  uint64_t unwound = 0;               // calls left without a probed exit (longjmp, exception, tail call)
  uint64_t unfinished = 0;            // calls still open when their thread or the recording ended
  uint64_t unmatched_exits = 0;       // exits of calls entered before the probes were placed
  uint64_t cost_per_hit_ns = 0;       // 0: not measured
  uint64_t lost = 0;                  // records the kernel dropped (ring full): counts are then lower bounds
  double budget_percent = 0;          // record --probe-budget; 0: no budget
  std::vector<StoppedProbe> stopped;  // in the order they were stopped
  uint64_t cut = 0;                   // calls open when their probes were removed: closed then
  // Calls whose self time, less the probes' part, was shorter than their own hits' cost:
  // within the calibration's error, given as 0.
  uint64_t unmeasurable_calls = 0;
  std::vector<std::string> unmeasurable;  // their functions
  uint64_t truncated_calls = 0;           // calls whose entry stack reached no root: under [truncated]
};

struct Metadata {
  std::string command;  // what was profiled
  RecordingModes mode;  // "exact", "sample", "syscall", "probe"; several in a forced merge
  std::string hostname;
  std::string clock = "CLOCK_MONOTONIC";
  int64_t start_realtime_ns = 0;  // wall-clock start, for humans
  int64_t duration_ns = 0;
  std::string callprof_version;
  std::optional<ExactFacts> exact;
  std::optional<SamplingFacts> sampling;
  std::optional<SyscallFacts> syscalls;
  std::optional<ProbeFacts> probes;
  bool compensated = false;                  // self times already had the hook overhead subtracted
  bool snapshot = false;                     // taken while the program still ran
  std::optional<TimelineFacts> timeline;     // set when a timeline was recorded
  std::map<std::string, std::string> extra;  // anything else worth keeping (free-form)
  // What the recording could not do, one line each (no samples, a process that wrote no
  // data, a damaged dump): a profile with little or no data says why.
  std::vector<std::string> warnings;
};

struct Profile {
  Metadata meta;
  std::vector<Module> modules;
  std::vector<Function> functions;
  std::vector<Process> processes;
  std::vector<Thread> threads;
  // Instructions and source lines the threads' CodeCosts point into (code_lines.h).
  std::vector<CodeLocation> locations;
  std::vector<std::string> source_files;  // file names of locations; "" for unknown
};

// The function's kind; ids outside the table (damaged input) are Normal.
inline FunctionKind kind_of(const Profile& p, FunctionId f) {
  return f < p.functions.size() ? p.functions[f].kind : FunctionKind::Normal;
}

}  // namespace callprof

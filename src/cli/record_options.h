// `callprof record`'s options and what they become: the environment the exact-mode
// runtime reads (docs/modes.md lists both).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "collect/runtime/function_plan.h"
#include "util/numbers.h"
#include "util/result.h"

namespace callprof::cli {

// Sampling mode (record --mode sample, attach).
struct SamplingArgs {
  uint64_t frequency = 999;         // Hz
  std::string event = "cpu-clock";  // cpu-clock | cycles | instructions | cache-misses | branch-misses
  std::string call_graph = "fp";    // fp | dwarf
  uint32_t stack_bytes = 8192;      // dwarf: user stack copied per sample
  bool off_cpu = false;             // also sample every switch-out (time blocked, with stacks)
  bool no_kernel = false;           // leave kernel frames out
  bool children = false;            // also profile the processes the target forks
};

// System-call tracing (--syscalls, with any mode).
struct SyscallArgs {
  std::string selection;            // names and classes, "" = not traced
  std::string stacks = "user";      // none | user | full
  uint32_t window_bytes = 256;      // user stack copied at entry, for the caller of a libc wrapper
  bool enabled() const { return !selection.empty(); }
};

// Probe mode (record --mode probe, attach --mode probe).
struct ProbeArgs {
  std::vector<std::string> functions;  // --probe: RE2 patterns on function names
  std::string modules;                 // --probe-module: RE2 pattern on module paths
  uint32_t limit = 1000;               // functions probed at most
};

struct RecordArgs {
  std::string output = "callprof.data";
  std::string mode = "auto";
  bool quiet = false;
  bool no_offcpu = false;
  bool faults = false;
  bool alloc = false;
  bool libcalls = false;
  bool raw_clock = false;           // --no-compensation: do not calibrate the hooks
  FunctionSelection functions;
  uint32_t max_depth = 0;           // 0: no limit
  std::string min_duration;         // e.g. "10us"; "" none
  uint32_t max_nodes = 0;           // 0: the runtime's default
  std::string snapshot_signal;      // "USR2", "SIGUSR2" or a number; "" none
  int64_t snapshot_interval_ns = 0;  // 0 none
  bool timeline = false;            // keep a per-thread timeline of calls (samples in sample mode)
  std::string timeline_min_duration = "10us";  // shorter calls stay off it (exact mode)
  uint32_t timeline_events = 1u << 16;         // per thread; older events are dropped and counted
  SamplingArgs sampling;
  SyscallArgs syscalls;
  ProbeArgs probes;
  std::vector<std::string> command;
};

void add_record_options(CLI::App& app, RecordArgs& args);
void add_sampling_options(CLI::App& app, SamplingArgs& args);
void add_probe_options(CLI::App& app, ProbeArgs& args);
void add_syscall_options(CLI::App& app, SyscallArgs& args);

using Environment = std::vector<std::pair<std::string, std::string>>;
// The runtime's variables for these options; `plan_path` "" when there is no plan.
Result<Environment> runtime_environment(const RecordArgs& args, const std::string& plan_path);

// The timeline's bound on calls, in ns (validated --timeline-min-duration).
Result<uint64_t> timeline_min_ns(const RecordArgs& args);
// "USR2", "SIGUSR2", "12".
Result<int> parse_signal(const std::string& text);

}  // namespace callprof::cli

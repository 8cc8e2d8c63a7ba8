// The runtime's configuration, read once from the environment `callprof record` sets
// (docs/modes.md lists the variables). Defaults make a plain LD_PRELOAD work too.
#pragma once

#include <stdint.h>

#include "thread_events.h"
#include "thread_profile.h"

namespace callprof::rt {

struct RuntimeConfig {
  char output_dir[512];
  uint32_t node_budget = 1u << 20;   // per thread; exceeding it prunes
  uint32_t stack_frames = 1u << 16;  // shadow stack capacity per thread (from RLIMIT_STACK, config.cpp)
  ThreadLimits limits;               // --max-depth, --min-duration (converted to ticks later)
  uint64_t min_duration_ns = 0;
  uint32_t timeline_events = 0;  // per-thread timeline ring (record --timeline); 0: none
  uint64_t timeline_min_ns = 0;  // calls shorter than this stay off the timeline
  EventOptions events;
  bool alloc = false;  // allocation metrics (libcallprof-alloc.so is preloaded)
  bool libcalls = false;
  bool compensate = true;     // measure the hooks' own cost at start-up
  uint8_t calibrate = 3;      // whose hooks to measure: bit 0 GCC's, bit 1 Clang's (wire::kHooks*)
  uint8_t auto_fold = 1;      // fold tiny functions: 0 off, 1 inlined copies, 2 all, 3 wrappers
  bool remove_hooks = false;  // rewrite the hook calls of filtered-out and folded functions (hook_removal.h)
  // ... a folded function's entries into calls of its counting stub, not nops: 0 none, 1 those
  // in its own code (its real calls), 2 its inlined copies' too (wire::kFoldCounts*)
  uint8_t fold_counts = 1;
  bool ordered_clock = false;    // lfence before the clock read at returns (clock.h)
  uint64_t auto_fold_ns = 0;     // their average self time below this; 0: from the calibration
  bool syscall_context = false;  // announce each thread's shadow stack to --syscalls' probe
  int snapshot_signal = 0;
  uint32_t snapshot_interval_ms = 0;
  char functions_file[512];  // filters and checkpoints (function_plan.cpp), "" none
  bool node_metrics() const { return events.offcpu || events.faults || alloc; }
};

// False when profiling is off (no output directory).
bool read_config(RuntimeConfig* config);

}  // namespace callprof::rt

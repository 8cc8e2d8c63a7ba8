// The profile: everything one recording produced, in one self-contained model
// (names, files and lines are stored, so no binary is needed to read it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/call_tree.h"
#include "model/syscall_stats.h"

namespace callprof {

using ModuleId = uint32_t;
inline constexpr ModuleId kNoModule = UINT32_MAX;

struct Module {
  std::string path;
  std::string build_id;  // lowercase hex, empty when the file has none
};

struct Function {
  std::string name;          // demangled when it could be
  std::string linkage_name;  // the ELF symbol, or "" when the address had none
  ModuleId module = kNoModule;
  uint64_t address = 0;      // entry address relative to the module's file (ELF vaddr)
  std::string file;          // source file, "" when unknown
  uint32_t line = 0;         // source line of the entry, 0 when unknown
};

struct Process {
  uint32_t pid = 0;
  uint32_t ppid = 0;             // the parent process, 0 when it is not in the profile
  uint32_t image = 0;            // 0: as forked; n: after its n-th exec (same pid)
  std::string command;           // argv joined by spaces
  int64_t start_ns = 0;          // CLOCK_MONOTONIC
  int64_t end_ns = 0;
  int death_signal = 0;          // the signal that killed it, 0 when it exited
  bool complete = true;          // false: data only up to its last snapshot
  // Overhead compensation measured by the runtime at start-up (exact mode): the hooks'
  // cost per call inside the callee's self time, in the caller's self time, and for a
  // call of an excluded function (in the caller's self time). Zero: not measured.
  double hook_inner_ns = 0;
  double hook_outer_ns = 0;
  double excluded_hook_ns = 0;
};

struct Thread {
  uint32_t tid = 0;
  uint32_t pid = 0;
  std::string name;
  uint32_t creator_tid = 0;              // 0: not created by a profiled thread
  std::vector<FunctionId> creator_path;  // the call path in the creator that created it
  FunctionId start_routine = kNoFunction;
  int64_t start_ns = 0;                  // CLOCK_MONOTONIC
  int64_t end_ns = 0;
  bool finished = false;                 // false: still running when the data was taken
  uint64_t dropped_calls = 0;            // calls not recorded (node or stack budget exhausted)
  uint64_t depth_limited_calls = 0;      // calls not recorded: deeper than --max-depth
  uint64_t short_calls = 0;              // calls not recorded: shorter than --min-duration
  uint64_t lost_events = 0;              // context-switch/fault records lost (off-CPU incomplete)
  uint32_t prunes = 0;                   // times the node budget forced a prune
  enum class OffCpu : uint8_t { Off, Measured, Unavailable };
  OffCpu offcpu = OffCpu::Off;
  CallTree tree;
  std::vector<SyscallStats> syscalls;    // traced system calls, by number (--syscalls)
};

struct Metadata {
  std::string command;         // what was profiled
  std::string mode;            // "exact", later "sample", "probe", "syscall"
  std::string hostname;
  std::string clock = "CLOCK_MONOTONIC";
  int64_t start_realtime_ns = 0;  // wall-clock start, for humans
  int64_t duration_ns = 0;
  std::string callprof_version;
  std::map<std::string, std::string> extra;  // options and anything else worth keeping
};

struct Profile {
  Metadata meta;
  std::vector<Module> modules;
  std::vector<Function> functions;
  std::vector<Process> processes;
  std::vector<Thread> threads;
};

}  // namespace callprof

// What the syscalls view and the JSON `syscalls` section show (SPEC §1.4), computed from
// the report's threads and tree: per system call its statistics (merged over the selected
// threads), the call paths that reach it, and per function the system calls it makes
// directly and below it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/syscall_stats.h"
#include "report/context.h"

namespace callprof {

// "write" for a `[syscall] write` node's function, "" for any other function.
std::string_view syscall_of(const ReportContext& ctx, FunctionId f);

// One call path to a system call: the callers outermost first, the leaf's metrics.
struct SyscallPath {
  std::vector<FunctionId> callers;
  uint64_t calls = 0, errors = 0, total_ns = 0;
};

struct SyscallRow {
  SyscallStats stats;              // merged over the selected threads
  std::vector<SyscallPath> paths;  // most time first
};

// Every traced system call of the selected threads whose name matches the filter (when
// the filter matches no system call, all are shown), most total time first.
std::vector<SyscallRow> syscall_rows(const ReportContext& ctx);

// Per function: the system calls it makes itself (`[syscall]` children of its nodes) and
// all made while it is on the stack (its outermost nodes' totals). The filter narrows the
// rows to matching functions when it matches one.
struct SyscallFunctionRow {
  FunctionId function = kNoFunction;
  uint64_t direct = 0, direct_ns = 0, inclusive = 0, inclusive_ns = 0;
};
std::vector<SyscallFunctionRow> syscall_function_rows(const ReportContext& ctx);

// "EBADF" for 9, "E123" when the name is unknown.
std::string errno_text(int err);

}  // namespace callprof

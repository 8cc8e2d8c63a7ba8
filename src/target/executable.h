// What `record` needs to know about a program before running it: where it is, whether it
// is a dynamically linked ELF file (so LD_PRELOAD can load the runtime), and whether it
// carries -finstrument-functions hooks (exact mode).
#pragma once

#include <string>

#include "util/result.h"

namespace callprof {

struct ExecutableInfo {
  std::string path;               // resolved through PATH like execvp
  bool dynamic = false;           // has an ELF interpreter
  bool has_hooks = false;         // references __cyg_profile_func_enter
  bool patchable = false;         // built with -fpatchable-function-entry (attachable: docs/attach.md)
  bool elf = false;               // an ELF file (else: a #! script, or something exec refuses)
  bool script = false;            // starts with "#!"
  int elf_class = 0;              // ELFCLASS32 / ELFCLASS64
  int machine = 0;                // e_machine
  int elf_type = 0;               // e_type: ET_EXEC, ET_DYN, ...
  bool changes_identity = false;  // set-user-ID or set-group-ID to someone else
  // Exact mode records it: through its hooks, or, with none, its patchable entries.
  bool exact_ready() const { return has_hooks || patchable; }
};

// Exact mode records it through its patchable entries (patched into calls as it starts):
// built with -fpatchable-function-entry and without hooks (hooks win when it has both).
inline bool entries_patched(const ExecutableInfo& exe) { return exe.patchable && !exe.has_hooks; }

Result<ExecutableInfo> inspect_executable(const std::string& program);

// Why a 32-bit program is refused in every mode, with what to use instead.
inline constexpr const char* kWhyNot32Bit =
    "callprof profiles 64-bit x86-64 programs only: its runtime is 64-bit, its unwinders read 64-bit frames and "
    "its system-call names are x86-64's, so a 32-bit program's callers and calls would come out wrong (perf "
    "record -g and strace handle 32-bit programs)";

// Ok when callprof can run and profile the program: a 64-bit x86-64 executable ELF file
// or a #! script, not set-user-ID (or set-group-ID) to another identity. Otherwise one line
// saying what callprof can and cannot do with it, before anything runs.
Status check_runnable(const ExecutableInfo& info);

// A shell, a #! script or a command that runs another (env, nice, timeout, xargs, ...):
// the work is in the programs it starts.
bool is_wrapper(const ExecutableInfo& info);

}  // namespace callprof

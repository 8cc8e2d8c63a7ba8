// Where a running process's modules keep the addresses of the hooks they call: the GOT
// entries relocated against __cyg_profile_func_enter and __cyg_profile_func_exit
// (R_X86_64_JUMP_SLOT for calls through the PLT, R_X86_64_GLOB_DAT for -fno-plt), found
// from each mapped module's relocations and its load address in /proc/PID/maps; and those
// of the functions the runtime stands in for while attached (exec*, _exit, _Exit,
// pthread_create, pthread_exit, setjmp/longjmp and kin, __cxa_begin_catch, the unwinders'
// entries: runtime/attach_replacements.h); and pthread_cancel's, which attaching to a
// patched program refuses.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace callprof::inject {

struct HookSlot {
  uint64_t address = 0;    // in the process
  std::string function;    // the symbol it is relocated against
  bool read_only = false;  // inside PT_GNU_RELRO: read-only once the loader is done
  bool hook() const { return function.rfind("__cyg_profile_func_", 0) == 0; }
  // An entry of the unwinder's (or pthread_cancel, which unwinds): a patched program's.
  bool unwinding() const { return function.rfind("_Unwind_", 0) == 0 || function == "pthread_cancel"; }
};

// Every hook slot of every module mapped in `pid` (none: the process calls no hooks) but
// the one at path `except` (the runtime itself, loaded by an earlier window).
Result<std::vector<HookSlot>> hook_slots(pid_t pid, const std::string& except = "");

// The slots of one ELF file loaded with load bias `bias` (its addresses plus the bias).
Result<std::vector<HookSlot>> hook_slots_of(const std::string& path, uint64_t bias);

// The slots of a program about to be launched and of the libraries it starts with (as the
// loader would find them), each module's at its link-time addresses: `record` of a program
// built to be attached lists its unwinder slots in the runtime's plan and refuses one that
// imports pthread_cancel. A module that cannot be read has none.
struct ModuleSlots {
  std::string path;
  std::vector<HookSlot> slots;
};
std::vector<ModuleSlots> start_up_slots(const std::string& executable);

// A slot as the runtime's attach settings list it: "got ADDRESS enter|exit|FUNCTION 0|1"
// (runtime/attach.cpp).
std::string settings_line(const HookSlot& slot);

}  // namespace callprof::inject

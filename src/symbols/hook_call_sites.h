// Where a module's code calls the compiler's hooks (`-finstrument-functions`): the address
// of every `call __cyg_profile_func_enter@plt` and `call __cyg_profile_func_exit@plt`, and of
// GCC's `jmp __cyg_profile_func_exit@plt` ending a function, found by matching the calls'
// and jumps' targets against the PLT stubs that jump to the hooks (plt_entries); a jump is
// confirmed by disassembling its function (capstone). Exact mode hands these to its
// runtime, which rewrites a site into a nop once the function it enters or leaves is
// folded or filtered out (docs/modes.md, "Removing hooks").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace callprof {

struct HookCallSites {
  // ELF virtual addresses of the 5-byte `call rel32` instructions, ascending: read from the
  // bytes, not decoded (the runtime rewrites one only after a hook call returned behind it).
  std::vector<uint64_t> enter, exit;
  // `jmp __cyg_profile_func_exit@plt` (5 bytes) ending a function: the exit hook as a tail
  // call, which returns for the function. Only an out-of-line function's own exit is in
  // tail position (an inlined copy's host goes on after it), so each belongs to the
  // function symbol that holds it; by that function's address, ascending.
  struct TailExit {
    uint64_t function, site;
  };
  std::vector<TailExit> tail_exits;
  // A byte 0xc3 in a read + execute segment, the last of a function (its `ret`): a call
  // site on a cache line's last byte, which cannot become a nop atomically, is pointed
  // there instead and returns at once (runtime/code_patch.h). 0 when none was found.
  uint64_t ret_byte = 0;
  // The PLT stubs that jump to the hooks: [0] enter's, [1] exit's (a module may have more
  // than one of each: .plt and .plt.sec).
  std::vector<uint64_t> stubs[2];
  // Calls of and jumps to the hooks' stubs that are not listed: in a segment that is not
  // exactly read + execute, or a jump outside any function symbol. (Calls through the GOT,
  // -fno-plt, are not seen at all: they stay hooked.)
  size_t other_calls = 0;
};

// Errors: the file cannot be opened or is not ELF. A module without hooks, or not x86-64,
// has no sites.
Result<HookCallSites> find_hook_call_sites(const std::string& path);

}  // namespace callprof

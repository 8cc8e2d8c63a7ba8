// The entry sites of a program built with -fpatchable-function-entry=5 (patched_calls.h,
// docs/attach.md "Programs built to be attached"): the ranges of the modules'
// __patchable_function_entries sections the attach settings give, the sites read from
// them with the bytes they had, the stubs within a call's reach of them that jump to the
// entry trampoline, and the sites' rewriting: into calls while every other thread is
// stopped, back into their bytes while the threads run (code_patch.h's protocol).
#pragma once

#include <stdint.h>

namespace callprof::rt {

// From the attach settings: a module's __patchable_function_entries, relocated, in
// [start, end) (8-byte addresses of the sites). False when there are too many modules.
bool add_patchable_range(uint64_t start, uint64_t end);
// An entry site not patched yet: GCC's 5 one-byte nops, or Clang's one 5-byte nop (`nopl
// 0(%rax,%rax,1)`, any displacement).
bool entry_nops(const uint8_t* b);
void clear_patchable_ranges();
bool patchable_ranges();

// Every other thread stopped: the sites whose bytes are still the compiler's nops become
// calls of their stub. 0, or a negative errno-like code (every site as it was then: -ENOMEM,
// or the mprotect's error when the system refuses writable code).
int patch_sites();
bool sites_patched();
// Threads running: every site gets its bytes back (a site across a cache line's last byte
// stays a call, into a dormant trampoline).
void restore_sites();
// An excluded function's site (`at`, the entry of `fn`) gets its bytes back at its first
// call in the window: its calls cost what the plain program pays from then on (docs/modes.md,
// "Removing hooks"); a removed folded function's calls its counting stub instead, where it
// can (hook_removal.h). A thread that finds the rewriter busy leaves it for a later call.
void remove_site(uint64_t at, uint64_t fn);

}  // namespace callprof::rt

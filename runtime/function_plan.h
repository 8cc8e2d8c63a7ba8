// Per-function decisions made by `callprof record` before the program started: which
// functions are filtered out (--include/--exclude on function and module names) and which
// are checkpoints. The recorder resolves names to ELF addresses per module file; here they
// become run-time addresses. Consulted only when a call path is first seen.
#pragma once

#include <stdint.h>

namespace callprof::rt {

// Reads the plan (format in docs/design.md, "Filters"); "" or an unreadable file: no plan.
// With `fast_exclusion`, excluded functions also enter the exclusion cache below.
void load_function_plan(const char* path, bool fast_exclusion);
// wire::kNode* flags for a function's new nodes.
uint32_t function_flags(uint64_t fn);
// Whether `address` lies in a module the plan lists: one loaded with the program, never
// unloaded, whose hook call sites the plan has.
bool in_plan_module(uint64_t address);
// The plan's module holding `address`: its index (below kMaxPlanModules) and its bounds;
// false when none does.
inline constexpr uint32_t kMaxPlanModules = 256;
bool plan_module_range(uint64_t address, uint32_t* index, uint64_t* start, uint64_t* end);
// A byte 0xc3 in the code of the plan's module holding `address` (code_patch.h), 0 when
// the plan gives none.
uint64_t return_byte_near(uint64_t address);
// Whether `address` is one of the plan's hook call sites: a 5-byte `call` of a hook through
// the PLT, in a read + execute segment of a module the plan lists (code_patch.h).
bool known_hook_site(uint64_t address);
// The plan's tail-call exit sites of function `fn` (`jmp __cyg_profile_func_exit@plt`
// ending it), at most `max` into `sites`; how many.
uint32_t tail_exits_of(uint64_t fn, uint64_t* sites, uint32_t max);

// Functions known to be excluded, direct-mapped by address: the hooks test it first, so
// an excluded call costs a compare, not a lookup. A slot holds a function that is
// excluded, or 0; collisions only send a function back to the slower path.
inline constexpr uint32_t kExclusionSlots = 4096;
extern uint64_t g_excluded_functions[kExclusionSlots];
inline bool known_excluded(uint64_t fn) { return g_excluded_functions[(fn >> 4) & (kExclusionSlots - 1)] == fn; }

}  // namespace callprof::rt

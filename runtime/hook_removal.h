// Removing the hooks of functions that no longer need them (issue 28; docs/modes.md,
// "Removing hooks"): a function filtered out by the plan, or folded by a thread
// (auto-fold), has its hook call sites rewritten (code_patch.h) as its calls reach them, so
// its later calls cost what the plain program pays: its exit hook calls become nops, and
// so do a filtered-out function's entry hook calls; a folded function's entry hook calls
// become calls of a counting stub (counting_stubs.h), which counts them per thread and
// function for about a nanosecond each.
// A folded function is removed for the whole process: it enters the exclusion cache, so
// every thread's hooks treat it as folded from then on, before any of its sites changes
// (an entry rewritten before its exit must not leave an exit with no entry).
#pragma once

#include <stdint.h>

#include "wire/raw_dump.h"

namespace callprof::rt {

// record's default; --keep-hooks turns it off (every call stays counted).
extern bool g_remove_hooks;

// `fn`, folded by a thread, is folded for every thread from now on and its sites may be
// rewritten. False when the exclusion cache's slot for it holds another function, or when
// it lies outside the plan's modules (a library loaded later): it stays folded per thread,
// its hooks kept.
bool remove_folded_function(uint64_t fn);
// Whether `fn` was removed by remove_folded_function (not filtered out by the plan).
bool removed_folded_function(uint64_t fn);
// The hook call returning to `hook_ret` becomes a nop when it is one of the plan's sites;
// true when this call rewrote it.
bool remove_hook_call(uint64_t hook_ret);
// The entry of `fn` that returns to `hook_ret` was met: its hook call becomes a nop (a call
// of its counting stub, for a removed folded function), and once it is, fn's tail-call
// exits (`jmp __cyg_profile_func_exit`) become `ret` (for a removed function, at once).
void remove_entry_hooks(uint64_t fn, uint64_t hook_ret);
// The exit hook of `fn`, excluded or removed, returned to `hook_ret`: that call becomes a
// nop when it is one of the plan's sites; when it is not, it was a tail exit (its hook
// returns into the caller), which one more try makes `ret` (the rewrite at its entry gives
// up after a bounded wait for another thread's, and nothing else would try again).
void remove_exit_hook(uint64_t fn, uint64_t hook_ret);
// A patched entry's call (patched_sites.h) at `site`, of `fn`, filtered out or folded, was
// met: what becomes of it. A removed folded function's, in a program patched from its start
// (not attached), calls its counting stub from now on where it can (Counting: done here);
// stays a call of the trampoline, which counts it, where its displacement spans two cache
// lines (Stays), or for now (Later); else the site gets its nops back (Nops; NopsUncounted:
// a removed function's calls that no stub could count).
enum class PatchedEntry : uint8_t { Counting, Stays, Later, Nops, NopsUncounted };
PatchedEntry rewrite_patched_entry(uint64_t site, uint64_t fn);
// A site of a removed folded function got its nops back: its calls since are not counted.
void note_uncounted_site();
// Whether the entry hook call of `fn` returning to `hook_ret` stays a call of the hook for
// good: one to count, whose displacement spans two cache lines, so it cannot be retargeted
// to a counting stub.
bool entry_call_stays(uint64_t fn, uint64_t hook_ret);
struct ThreadState;
// A call of removed function `fn` counted in `s` as its stub would count it; false while its
// index is being written.
bool count_unhooked_call(ThreadState* s, uint64_t fn);
uint32_t removed_function_count();
// The index of `fn` among the removed functions (its counting stub's and its counter's),
// UINT32_MAX when it was not removed (or is being recorded as removed right now).
uint32_t removed_index(uint64_t fn);
// Entry hook calls of removed functions that now call a counting stub, and those that became
// nops since no stub could be had (their calls since are not counted).
struct StubSites {
  uint32_t counted;
  uint32_t uncounted;
};
StubSites stub_sites();
// Whether a removed folded function's calls after its entries were rewritten are counted:
// record without --fold-counts none, not attached (the rewritten entries then call no
// stub); by default only its real calls, not its inlined copies' runs.
bool counts_unhooked_calls();
// In a fork child: another thread of the parent that was mapping counting stubs never
// finishes here.
void reset_hook_removal_after_fork();
// The i-th removed function and when (i < removed_function_count(); fn 0 while being written).
wire::DumpRemovedFunction removed_function(uint32_t i);

}  // namespace callprof::rt

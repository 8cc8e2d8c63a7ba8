// Rewriting the program's code while its threads run (issue 28): the one place where the
// runtime changes instructions. A hook call site (`call __cyg_profile_func_enter@plt`, 5
// bytes, found by `record` and listed in the function plan) becomes a 5-byte nop once its
// function is filtered out or folded, so those calls cost what the plain program pays.
//
// Protocol (docs/design.md, "Removing hooks"): one rewriter at a time (a try-lock: a
// thread that finds it taken leaves the site for a later call); the page is made
// writable without losing execute (mprotect RWX), the new bytes go in with one locked
// compare-and-exchange of the aligned-or-not 8 bytes around them inside one cache line
// (x86-64 makes a locked access within a cache line atomic, so another thread fetches
// either the old instruction or the new one, never a mix; XRay patches its sleds with
// the same kind of store), and the page gets its read + execute rights back. An
// instruction whose 5 bytes cross a cache line gets a short form at its start instead
// (`jmp .+5` over the old rest, or `ret`); a call starting on a line's last byte keeps its
// opcode and gets a new displacement (the next line's first four bytes, one locked store
// again) that reaches a byte 0xc3 of its module, which executes as `ret` wherever it lies
// in an instruction: the call returns at once (a loop of such calls ran as fast as one of
// the 5-byte nops here, 0.26 ns a round; 1 site in 64). A thread that had already fetched
// the old call still reaches the hook, which finds the function gone and returns. When the
// system refuses a writable executable page (SELinux execmod, PR_SET_MDWE), nothing is
// rewritten from then on.
#pragma once

#include <stdint.h>

namespace callprof::rt {

enum class Rewrite : uint8_t {
  Done,
  NotACall,     // the bytes are not the expected `call`/`jmp rel32` (already rewritten, or not a site)
  Busy,         // another thread is rewriting: try again on a later call
  CrossesLine,  // even the short form would span two cache lines, and no `ret` byte was given: it stays
  Refused,      // mprotect refused: nothing is rewritten from now on
  OutOfReach,   // retarget_call: the target is beyond a call's reach (2 GiB) from the site
};

// The 5-byte `call rel32` at `site` becomes `nopl 0(%rax,%rax,1)` (across a cache line,
// `jmp .+5`; starting on a line's last byte, a call of `ret_byte`, the address of a byte
// 0xc3 in the same module; without one, CrossesLine). Not for the hot path: two system
// calls, and a page copied on the first write to it.
Rewrite rewrite_call_as_nop(uint64_t site, uint64_t ret_byte = 0);
// The 5-byte `jmp rel32` at `site` (a tail call of the exit hook) becomes `ret`: the
// function returns as the hook would have returned for it. While another thread rewrites,
// up to `waits` more tries, a sched_yield apart (hook removal waits for a tail exit: its
// hook returns into the caller, not behind the site, so no later call tries it again);
// still Busy after them (a signal handler that interrupted this thread's own rewrite).
Rewrite rewrite_jump_as_return(uint64_t site, uint32_t waits = 0);
// The 5-byte `call rel32` at `site` calls `target` instead (a counting stub,
// counting_stubs.h): its displacement changes with one locked store and the opcode stays,
// so another thread runs the old call or the new one. CrossesLine when the displacement
// spans two cache lines (a call starting 1 to 3 bytes before a line's end): it stays.
Rewrite retarget_call(uint64_t site, uint64_t target);

// A program patched at attach (patched_calls.h), its threads running: the 5-byte `call`
// at `site` gets its `original` bytes back with the protocol above (across a cache line,
// `jmp .+5` over the old rest): at detach, or (`removed`: counted as a hook call removed)
// once its function is excluded.
Rewrite restore_call(uint64_t site, const uint8_t original[5], bool removed = false);

// Attaching to such a program, every other thread of the process stopped (callprof holds
// them with ptrace, and moved any that stood inside a site's nops past them): the `n`
// bytes at `at` become `bytes` with plain stores. Each page is made writable once (RWX,
// as above) and gets read + execute back at end_stopped_writes. False when refused.
bool write_while_stopped(uint64_t at, const uint8_t* bytes, unsigned n);
// The same for the 5 bytes at `at` becoming `call target` (within a call's reach).
bool write_call_while_stopped(uint64_t at, uint64_t target);
void end_stopped_writes();

// Attaching (attach.cpp): the pointer at `slot` (8-byte aligned: a GOT entry of the hooks)
// becomes `value`, atomically, and its old value goes to *old; `read_only` (RELRO): the
// page is writable for that store only. False when mprotect refused.
bool swap_pointer(uint64_t slot, uint64_t value, bool read_only, uint64_t* old);

// The rewriting lock held for the scope, as another rewriter holds it (tests: what a
// rewrite does while one is under way); `held()` false when it was taken already.
class RewriteHold {
 public:
  RewriteHold();
  ~RewriteHold();
  RewriteHold(const RewriteHold&) = delete;
  RewriteHold& operator=(const RewriteHold&) = delete;
  bool held() const { return held_; }

 private:
  bool held_;
};

// The system refused writable code: every later rewrite would be refused too.
inline bool rewriting_refused() {
  extern uint32_t g_rewrite_refused_errno;
  return __atomic_load_n(&g_rewrite_refused_errno, __ATOMIC_RELAXED) != 0;
}

// What rewriting did in this process, for the dump.
struct RewriteCounts {
  uint32_t done;
  uint32_t refused_errno;  // mprotect's error when the system refused; 0 when it did not
};
RewriteCounts rewrite_counts();

// In a fork child: a rewrite in progress in the parent's other thread never finishes here.
void reset_rewriting_after_fork();

}  // namespace callprof::rt

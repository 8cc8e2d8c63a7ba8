// See code_patch.h for the protocol.
#include "code_patch.h"

#include <sys/mman.h>

#include "raw_syscall.h"

namespace callprof::rt {

uint32_t g_rewrite_refused_errno = 0;

namespace {

constexpr uint64_t kLine = 64, kPage = 4096;
// Each rewrite in full (5 bytes), and short, for an instruction that crosses a cache line:
// only its first bytes change, which skip or end before the old rest.
struct Replacement {
  uint8_t opcode;  // the instruction's first byte before
  uint8_t full[5];
  uint8_t short_bytes[2];
  uint8_t short_size;
  uint8_t counted;  // a hook call removed (rewrite_counts), not a patched entry given back
};
constexpr Replacement kCallToNop = {0xe8, {0x0f, 0x1f, 0x44, 0x00, 0x00}, {0xeb, 0x03}, 2, 1};  // nopl; jmp .+5
constexpr Replacement kJumpToReturn = {0xe9, {0xc3, 0x0f, 0x1f, 0x40, 0x00}, {0xc3, 0}, 1, 1};  // ret

int g_lock = 0;
uint32_t g_done = 0;
// The pages write_while_stopped made writable: [g_open_lo, g_open_hi).
uint64_t g_open_lo = 0, g_open_hi = 0;

void refused(long e) { __atomic_store_n(&g_rewrite_refused_errno, uint32_t(-e), __ATOMIC_RELAXED); }

// Replaces the 8 bytes at `at` if they still hold `expected`: one locked instruction, so
// atomic for every other CPU when the 8 bytes lie in one cache line, aligned or not.
bool exchange8(uint64_t at, uint64_t expected, uint64_t desired) {
  auto* word = reinterpret_cast<volatile uint64_t*>(at);
  uint64_t seen = expected;
  asm volatile("lock cmpxchgq %2, %1" : "+a"(seen), "+m"(*word) : "r"(desired) : "memory", "cc");
  return seen == expected;
}

// The 5-byte instruction at `site` is rewritten as `r` says.
Rewrite rewrite_locked(uint64_t site, const Replacement& r) {
  if (*reinterpret_cast<const volatile uint8_t*>(site) != r.opcode) return Rewrite::NotACall;
  const uint64_t in_line = site & (kLine - 1);
  const bool whole = in_line + 5 <= kLine;
  const uint8_t* with = whole ? r.full : r.short_bytes;
  const uint64_t size = whole ? 5 : r.short_size;
  if (in_line + size > kLine) return Rewrite::CrossesLine;
  // The 8 bytes starting at the site, or ending where the new bytes end: either lies in
  // the site's line.
  const uint64_t window = in_line + 8 <= kLine ? site : site + size - 8;
  void* page = reinterpret_cast<void*>(window & ~(kPage - 1));
  if (long e = sys::mprotect(page, kPage, PROT_READ | PROT_WRITE | PROT_EXEC); e != 0) {
    refused(e);
    return Rewrite::Refused;
  }
  uint64_t old = *reinterpret_cast<const volatile uint64_t*>(window), desired = old;
  auto* bytes = reinterpret_cast<uint8_t*>(&desired);
  for (uint64_t i = 0; i < size; ++i) bytes[site - window + i] = with[i];
  const bool changed = exchange8(window, old, desired);
  sys::mprotect(page, kPage, PROT_READ | PROT_EXEC);
  if (!changed) return Rewrite::NotACall;
  g_done += r.counted;
  return Rewrite::Done;
}

// The call at `site` reaches `target` instead: its displacement alone changes, with one
// locked store when those four bytes lie in one cache line (a call starting on a line's
// last byte has them all in the next line). The opcode stays: another thread fetches the
// old target or the new one.
Rewrite retarget_locked(uint64_t site, uint64_t target) {
  if (*reinterpret_cast<const volatile uint8_t*>(site) != 0xe8) return Rewrite::NotACall;
  const int64_t rel = int64_t(target) - int64_t(site + 5);
  if (rel != int64_t(int32_t(rel))) return Rewrite::OutOfReach;
  const uint64_t disp = site + 1, in_line = disp & (kLine - 1);
  if (in_line + 4 > kLine) return Rewrite::CrossesLine;
  const uint64_t window = in_line + 8 <= kLine ? disp : disp + 4 - 8;
  void* page = reinterpret_cast<void*>(window & ~(kPage - 1));
  if (long e = sys::mprotect(page, kPage, PROT_READ | PROT_WRITE | PROT_EXEC); e != 0) {
    refused(e);
    return Rewrite::Refused;
  }
  const uint64_t old = *reinterpret_cast<const volatile uint64_t*>(window);
  uint64_t desired = old;
  const int32_t rel32 = int32_t(rel);
  __builtin_memcpy(reinterpret_cast<uint8_t*>(&desired) + (disp - window), &rel32, 4);
  const bool changed = desired != old && exchange8(window, old, desired);
  sys::mprotect(page, kPage, PROT_READ | PROT_EXEC);
  if (!changed) return Rewrite::NotACall;
  ++g_done;
  return Rewrite::Done;
}

// A call starting on a line's last byte, which no nop can replace atomically: it calls a
// byte 0xc3 of its module, which returns at once.
Rewrite retarget_to_ret_byte(uint64_t site, uint64_t ret_byte) {
  if ((site & (kLine - 1)) != kLine - 1 || ret_byte == 0 ||
      *reinterpret_cast<const volatile uint8_t*>(ret_byte) != 0xc3)
    return Rewrite::CrossesLine;
  const Rewrite r = retarget_locked(site, ret_byte);
  return r == Rewrite::OutOfReach ? Rewrite::CrossesLine : r;
}

template <typename Locked, typename... Args>
Rewrite under_lock(Locked locked, Args... args) {
  if (rewriting_refused()) return Rewrite::Refused;
  const RewriteHold hold;
  return hold.held() ? locked(args...) : Rewrite::Busy;
}

Rewrite rewrite(uint64_t site, const Replacement& r) { return under_lock(rewrite_locked, site, r); }

}  // namespace

RewriteHold::RewriteHold() : held_(__atomic_exchange_n(&g_lock, 1, __ATOMIC_ACQUIRE) == 0) {}
RewriteHold::~RewriteHold() {
  if (held_) __atomic_store_n(&g_lock, 0, __ATOMIC_RELEASE);
}

Rewrite restore_call(uint64_t site, const uint8_t original[5], bool removed) {
  Replacement r = {0xe8, {}, {0xeb, 0x03}, 2, removed};
  for (int i = 0; i < 5; ++i) r.full[i] = original[i];
  return rewrite(site, r);
}

bool write_while_stopped(uint64_t at, const uint8_t* bytes, unsigned n) {
  if (rewriting_refused()) return false;
  const uint64_t lo = at & ~(kPage - 1), hi = (at + n + kPage - 1) & ~(kPage - 1);
  if (lo < g_open_lo || hi > g_open_hi) {
    end_stopped_writes();
    if (long e = sys::mprotect(reinterpret_cast<void*>(lo), hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC); e != 0) {
      refused(e);
      return false;
    }
    g_open_lo = lo, g_open_hi = hi;
  }
  auto* to = reinterpret_cast<volatile uint8_t*>(at);
  for (unsigned i = 0; i < n; ++i) to[i] = bytes[i];
  return true;
}

bool write_call_while_stopped(uint64_t at, uint64_t target) {
  uint8_t call[5] = {0xe8};
  const int32_t rel = int32_t(int64_t(target) - int64_t(at + 5));
  __builtin_memcpy(call + 1, &rel, 4);
  return write_while_stopped(at, call, sizeof call);
}

void end_stopped_writes() {
  if (g_open_hi > g_open_lo)
    sys::mprotect(reinterpret_cast<void*>(g_open_lo), g_open_hi - g_open_lo, PROT_READ | PROT_EXEC);
  g_open_lo = g_open_hi = 0;
}

Rewrite rewrite_call_as_nop(uint64_t site, uint64_t ret_byte) {
  const Rewrite r = rewrite(site, kCallToNop);
  return r == Rewrite::CrossesLine ? under_lock(retarget_to_ret_byte, site, ret_byte) : r;
}
Rewrite rewrite_jump_as_return(uint64_t site, uint32_t waits) {
  Rewrite r;
  while ((r = rewrite(site, kJumpToReturn)) == Rewrite::Busy && waits-- > 0) sys::call(SYS_sched_yield);
  return r;
}
Rewrite retarget_call(uint64_t site, uint64_t target) { return under_lock(retarget_locked, site, target); }

bool swap_pointer(uint64_t slot, uint64_t value, bool read_only, uint64_t* old) {
  void* page = reinterpret_cast<void*>(slot & ~(kPage - 1));
  if (read_only && sys::mprotect(page, kPage, PROT_READ | PROT_WRITE) != 0) return false;
  *old = __atomic_exchange_n(reinterpret_cast<uint64_t*>(slot), value, __ATOMIC_SEQ_CST);
  if (read_only) sys::mprotect(page, kPage, PROT_READ);
  return true;
}

RewriteCounts rewrite_counts() {
  return {__atomic_load_n(&g_done, __ATOMIC_RELAXED), __atomic_load_n(&g_rewrite_refused_errno, __ATOMIC_RELAXED)};
}

void reset_rewriting_after_fork() { g_lock = 0; }

}  // namespace callprof::rt

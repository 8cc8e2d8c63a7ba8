// See patched_calls.h.
#include "patched_calls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>

#include "attach_replacements.h"
#include "code_patch.h"
#include "hook_path.h"
#include "patched_sites.h"
#include "raw_syscall.h"
#include "symbol_presence.h"
#include "wire/attach_frames.h"
#include "wire/raw_dump.h"
#include "wire/return_stacks.h"

extern "C" void callprof_patched_return();  // patched_trampolines.S
// Every return stack mapped, pushed lock-free (wire/return_stacks.h): callprof reads them.
extern "C" {
__attribute__((visibility("default"))) callprof::wire::ReturnStack* callprof_return_stacks = nullptr;
}

namespace callprof::rt {
namespace {

// An ordering the compiler keeps (a signal handler on this thread sees the stores in order).
inline void signal_fence() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// The window whose calls are recorded (0: none; dormant).
uint32_t g_window = 0;
uint32_t g_last_window = 0;

using wire::kReturnCapacity;
using wire::ReturnEntry;
using wire::ReturnStack;
__thread ReturnStack* t_returns __attribute__((tls_model("initial-exec")));

ReturnStack* next_of(const ReturnStack* r) { return reinterpret_cast<ReturnStack*>(r->h.next); }

const uint64_t kTrampoline = reinterpret_cast<uint64_t>(&callprof_patched_return);

// Thread `tid`'s stack as the attach seeds it (every other thread stopped): the one it
// owns, or a new one it takes at its first patched call or return.
ReturnStack* seeded_stack(uint32_t tid) {
  for (ReturnStack* r = __atomic_load_n(&callprof_return_stacks, __ATOMIC_ACQUIRE); r; r = next_of(r))
    if (r->h.owner == tid) return r;
  auto* r = static_cast<ReturnStack*>(
      sys::mmap(nullptr, sizeof(ReturnStack), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE));
  if (!r) return nullptr;
  r->h.owner = tid;
  r->h.seeded = 1;
  ReturnStack* head = __atomic_load_n(&callprof_return_stacks, __ATOMIC_RELAXED);
  do r->h.next = reinterpret_cast<uint64_t>(head);
  while (!__atomic_compare_exchange_n(&callprof_return_stacks, &head, r, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  return r;
}

// This thread's stack: the one the attach seeded for it, a free one, or one whose thread is
// gone (its tid no longer names a thread of this process, or names this thread, which has
// none yet: an ended thread's id, reused); else a new one.
ReturnStack* find_return_stack() {
  const uint32_t me = sys::gettid(), pid = sys::getpid();
  for (ReturnStack* r = __atomic_load_n(&callprof_return_stacks, __ATOMIC_ACQUIRE); r; r = next_of(r))
    if (__atomic_load_n(&r->h.owner, __ATOMIC_RELAXED) == me && r->h.seeded) {
      r->h.seeded = 0;
      return t_returns = r;
    }
  for (ReturnStack* r = __atomic_load_n(&callprof_return_stacks, __ATOMIC_ACQUIRE); r; r = next_of(r)) {
    uint32_t owner = __atomic_load_n(&r->h.owner, __ATOMIC_RELAXED);
    if (owner != 0 && owner != me && sys::call(SYS_tgkill, pid, owner, 0) != -ESRCH) continue;
    if (!__atomic_compare_exchange_n(&r->h.owner, &owner, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) continue;
    r->h.depth = 0;
    r->h.seeded = 0;
    return t_returns = r;
  }
  ReturnStack* r = seeded_stack(me);  // none is this thread's: a new one
  if (r) r->h.seeded = 0;
  return t_returns = r;
}

// find_return_stack, once at a time per thread: a signal handler's call arriving while this
// thread looks for its stack gets none (that call is not seen), where it would have taken
// the very stack being taken, as an ended thread's, and emptied it of its seeded frames.
__thread uint32_t t_finding __attribute__((tls_model("initial-exec")));
ReturnStack* acquire_return_stack() {
  if (t_finding) return nullptr;
  t_finding = 1;
  signal_fence();
  ReturnStack* r = find_return_stack();
  signal_fence();
  t_finding = 0;
  return r;
}

// The function whose entry nops are at `site`: the site itself, or 4 bytes before it when
// the function begins with endbr64 (-fcf-protection puts the nops after it).
inline uint64_t function_at(uint64_t site) {
  if ((site & 4095) < 4) return site;  // the bytes before lie on another page
  uint32_t before;
  __builtin_memcpy(&before, reinterpret_cast<const void*>(site - 4), 4);
  return before == 0xfa1e0ff3u ? site - 4 : site;
}

[[noreturn]] void lost_return() {
  static const char kMessage[] = "callprof: a patched function's return address was lost; stopping the process\n";
  sys::write(2, kMessage, sizeof kMessage - 1);
  sys::call(SYS_tgkill, sys::getpid(), sys::gettid(), SIGABRT);
  __builtin_trap();
}

// The frames open at the attach whose return addresses callprof found (wire::AttachFrame::
// returns) get the trampoline, each on its thread's stack, outermost first (a thread inside
// the unwinder: at its catch). A slot that no longer holds what callprof read is left
// alone (that frame's return is not seen).
void seed_returns(const wire::AttachFrame* frames, uint32_t count, uint32_t window) {
  for (uint32_t i = 0; i < count; ++i) {
    const wire::AttachFrame& f = frames[i];
    if (!f.returns) continue;
    auto* slot = reinterpret_cast<uint64_t*>(f.sp);
    ReturnStack* r = seeded_stack(f.tid);
    if (!r || r->h.depth == kReturnCapacity || *slot != f.callsite) continue;
    // A thread walking its stack (returns 2) gets the trampoline at its catch, as after a
    // throw (reinstall_returns).
    const uint32_t later = f.returns == 2;
    r->e[r->h.depth++] = ReturnEntry{f.sp, f.callsite, f.fn, window, later};
    if (!later) *slot = kTrampoline;
  }
}

}  // namespace

void unpatch_sites() {
  __atomic_store_n(&g_window, 0u, __ATOMIC_RELEASE);
  restore_sites();
}

int begin_patched_window(const wire::AttachFrame* frames, uint32_t count) {
  const uint32_t window = g_last_window + 1 ? g_last_window + 1 : 1;
  seed_returns(frames, count, window);
  if (const int status = patch_sites(); status != 0) {
    restore_all_returns();
    return status;
  }
  g_last_window = window;
  __atomic_store_n(&g_window, window, __ATOMIC_RELEASE);
  return 0;
}

namespace {

// The tasks in /proc/self/task (2 or more: other threads run), or -errno when unreadable.
long thread_count() {
  const long fd = sys::open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return fd;
  alignas(8) char buf[4096];
  long n = 0, got;
  while ((got = sys::call(SYS_getdents64, fd, sys::p(buf), sizeof buf)) > 0)
    for (long at = 0; at < got;) {
      const auto* d = reinterpret_cast<const struct dirent64*>(buf + at);
      if (d->d_name[0] != '.') ++n;
      at += d->d_reclen;
    }
  sys::close(int(fd));
  return got < 0 ? got : n;
}

struct UnwinderSlot {
  uint64_t slot, stand_in;
  bool read_only;
};
UnwinderSlot g_unwinder_slots[256];
uint32_t g_unwinder_slot_count = 0;

}  // namespace

bool add_unwinder_slot(uint64_t slot, const char* name, bool read_only) {
  // Resolves the real entry too: now, at start-up, not at a throw (dlsym may take the
  // loader's lock).
  const uint64_t stand_in = patched_replacement(name);
  if (!stand_in || slot % 8 != 0 || g_unwinder_slot_count == sizeof g_unwinder_slots / sizeof g_unwinder_slots[0])
    return false;
  g_unwinder_slots[g_unwinder_slot_count++] = UnwinderSlot{slot, stand_in, read_only};
  return true;
}

bool patched_window_open() { return __atomic_load_n(&g_window, __ATOMIC_ACQUIRE) != 0; }

int patch_entries_at_start(uint32_t* failed_step) {
  const long threads = thread_count();
  *failed_step = threads < 0 ? wire::kPatchStepTaskList : wire::kPatchStepOtherThreads;
  if (threads < 0) return int(threads);
  if (threads != 1) return -EBUSY;
  // The stand-ins first: no return address is replaced before a throw would put it back.
  *failed_step = wire::kPatchStepUnwinder;
  for (uint32_t i = 0; i < g_unwinder_slot_count; ++i) {
    uint64_t old = 0;
    const UnwinderSlot& u = g_unwinder_slots[i];
    if (!swap_pointer(u.slot, u.stand_in, u.read_only, &old)) return -EPERM;
  }
  *failed_step = wire::kPatchStepCode;
  const int status = begin_patched_window(nullptr, 0);
  if (status == 0) *failed_step = wire::kPatchStepUnknown;
  return status;
}

// A thread whose first patched event this is may have frames seeded at the attach.
ReturnStack* own_stack() { return t_returns ? t_returns : callprof_return_stacks ? acquire_return_stack() : nullptr; }

void restore_returns_for_unwinding() {
  ReturnStack* r = own_stack();
  if (!r) return;
  // Only over the trampoline: a tail call's entry shares its caller's slot and holds the
  // trampoline as its "original"; the caller's entry writes the real address.
  for (uint32_t i = r->h.depth; i-- > 0;) {
    ReturnEntry& e = r->e[i];
    auto* slot = reinterpret_cast<uint64_t*>(e.slot);
    if (e.restored || *slot != kTrampoline) continue;
    *slot = e.original;
    e.restored = 1;
  }
}

void reinstall_returns(uint64_t landing_sp) {
  ReturnStack* r = own_stack();
  if (!r) return;
  uint32_t keep = 0;
  for (uint32_t i = 0; i < r->h.depth; ++i) {
    ReturnEntry e = r->e[i];
    if (e.restored && e.slot < landing_sp) continue;  // unwound
    if (e.restored) {
      auto* slot = reinterpret_cast<uint64_t*>(e.slot);
      if (*slot != e.original && *slot != kTrampoline) continue;  // returned meanwhile
      *slot = kTrampoline;
      e.restored = 0;
    }
    r->e[keep++] = e;
  }
  r->h.depth = keep;
}

void restore_all_returns() {
  for (ReturnStack* r = __atomic_load_n(&callprof_return_stacks, __ATOMIC_ACQUIRE); r; r = next_of(r)) {
    for (uint32_t i = r->h.depth; i-- > 0;) {
      auto* slot = reinterpret_cast<uint64_t*>(r->e[i].slot);
      if (!r->e[i].restored && *slot == kTrampoline) *slot = r->e[i].original;
    }
    r->h.depth = 0;
  }
}

void release_return_stack() {
  ReturnStack* r = t_returns;
  if (!r) return;
  t_returns = nullptr;
  r->h.depth = 0;
  r->h.seeded = 0;
  __atomic_store_n(&r->h.owner, 0u, __ATOMIC_RELEASE);
}

void own_return_stack_after_fork() {
  if (ReturnStack* r = t_returns) r->h.owner = sys::gettid();
}

}  // namespace callprof::rt

using namespace callprof::rt;

namespace {

// A function this thread folded (--auto-fold): the call is counted, no return is seen, and
// the function is removed for the whole process (the exclusion cache), so that its site
// gets its nops back at its next call, as a hooked program's hook calls become nops.
__attribute__((noinline)) void fold_call(ThreadState* s, uint64_t fn, uint64_t caller) {
  s->busy = 1;
  s->profile.count_folded(fn, caller);
  s->busy = 0;
  if (g_remove_hooks && !rewriting_refused()) remove_folded_function(fn);
}

}  // namespace

// The entry trampoline's call: the site's call returns to `after_call`, and the function's
// return address is at `slot`.
extern "C" __attribute__((visibility("hidden"))) void callprof_patched_enter(uint64_t after_call, uint64_t slot) {
  const uint32_t window = __atomic_load_n(&g_window, __ATOMIC_ACQUIRE);
  if (__builtin_expect(window == 0, 0)) return;  // detached: a call that had fetched the old bytes
  const uint64_t fn = function_at(after_call - 5);
  auto* ret = reinterpret_cast<uint64_t*>(slot);
  const uint64_t caller = *ret;
  if (__builtin_expect(known_excluded(fn), 0)) {
    excluded_call(fn, caller, 0);
    return remove_site(after_call - 5, fn);
  }
  if (ThreadState* s = t_state; s && !s->busy && s->profile.folded(fn)) return fold_call(s, fn, caller);
  ReturnStack* r = t_returns;
  if (__builtin_expect(r == nullptr, 0) && !(r = acquire_return_stack())) return;
  const uint32_t d = r->h.depth;
  if (__builtin_expect(d >= kReturnCapacity, 0)) return;
  // Claimed before it is written: a signal handler's calls land above it.
  r->e[d].slot = 0;
  signal_fence();
  r->h.depth = d + 1;
  signal_fence();
  r->e[d] = ReturnEntry{slot, caller, fn, window, 0};
  signal_fence();
  *ret = kTrampoline;
  hook_enter(fn, caller, slot);
}

// The return trampoline's call: the real return address of the frame whose slot was
// `slot`. The topmost entry of that slot is the frame's (a tail call's shares the slot and
// lies above); entries above it deeper on the stack were left by a longjmp.
extern "C" __attribute__((visibility("hidden"))) uint64_t callprof_patched_leave(uint64_t slot) {
  ReturnStack* r = t_returns;
  if (__builtin_expect(r == nullptr, 0)) r = acquire_return_stack();  // a frame open at the attach
  const uint32_t d = r ? r->h.depth : 0;
  for (uint32_t i = d; i-- > 0;) {
    const ReturnEntry e = r->e[i];
    if (e.slot != slot) continue;
    uint32_t keep = i;
    for (uint32_t j = i + 1; j < d; ++j)  // entries of another stack (a signal stack) stay
      if (r->e[j].slot > slot) r->e[keep++] = r->e[j];
    signal_fence();
    r->h.depth = keep;
    signal_fence();
    if (e.window != 0 && e.window == __atomic_load_n(&g_window, __ATOMIC_ACQUIRE)) hook_exit(e.fn, slot);
    return e.original;
  }
  lost_return();
}

// The unwinders' entry points: the thread's return addresses are put back, then the real
// function runs with the caller's arguments and frame (a jump, no frame of ours between).
extern "C" {
__attribute__((visibility("hidden"))) void* callprof_real_unwinders[4];
__attribute__((visibility("hidden"))) void callprof_restore_for_unwinder(int which);
}

namespace {
const char* const kUnwinderNames[4] = {"_Unwind_RaiseException", "_Unwind_Resume", "_Unwind_Resume_or_Rethrow",
                                       "_Unwind_ForcedUnwind"};
}

void callprof_restore_for_unwinder(int which) {
  if (!callprof_real_unwinders[which]) callprof_real_unwinders[which] = next_symbol(kUnwinderNames[which]);
  restore_returns_for_unwinding();
}

// Entry: rsp = 8 mod 16. Saves the argument registers (rdi..rcx: the unwinders take up to
// four), aligns, calls, restores and jumps.
#define CALLPROF_UNWINDER_STAND_IN(name, index)              \
  asm(".text\n"                                              \
      ".type callprof_own_" #name                            \
      ", @function\n"                                        \
      ".hidden callprof_own_" #name "\ncallprof_own_" #name  \
      ":\n"                                                  \
      "  push %rdi\n  push %rsi\n  push %rdx\n  push %rcx\n" \
      "  sub $8, %rsp\n"                                     \
      "  mov $" #index                                       \
      ", %edi\n"                                             \
      "  call callprof_restore_for_unwinder\n"               \
      "  add $8, %rsp\n"                                     \
      "  pop %rcx\n  pop %rdx\n  pop %rsi\n  pop %rdi\n"     \
      "  jmp *callprof_real_unwinders+8*" #index             \
      "(%rip)\n"                                             \
      ".size callprof_own_" #name ", .-callprof_own_" #name "\n");

CALLPROF_UNWINDER_STAND_IN(_Unwind_RaiseException, 0)
CALLPROF_UNWINDER_STAND_IN(_Unwind_Resume, 1)
CALLPROF_UNWINDER_STAND_IN(_Unwind_Resume_or_Rethrow, 2)
CALLPROF_UNWINDER_STAND_IN(_Unwind_ForcedUnwind, 3)

extern "C" void callprof_own__Unwind_RaiseException();
extern "C" void callprof_own__Unwind_Resume();
extern "C" void callprof_own__Unwind_Resume_or_Rethrow();
extern "C" void callprof_own__Unwind_ForcedUnwind();

// Also resolves the real function: called as the attach reads its settings, on the thread
// callprof borrowed at a safe point (dlsym may take the loader's lock; a throw must not).
uint64_t callprof::rt::patched_replacement(const char* name) {
  for (int i = 0; i < 4; ++i)
    if (!callprof_real_unwinders[i] && __builtin_strcmp(name, kUnwinderNames[i]) == 0)
      callprof_real_unwinders[i] = next_symbol(name);
  static const OwnFunction kOwn[] = {
      {"_Unwind_RaiseException", reinterpret_cast<const void*>(&callprof_own__Unwind_RaiseException)},
      {"_Unwind_Resume", reinterpret_cast<const void*>(&callprof_own__Unwind_Resume)},
      {"_Unwind_Resume_or_Rethrow", reinterpret_cast<const void*>(&callprof_own__Unwind_Resume_or_Rethrow)},
      {"_Unwind_ForcedUnwind", reinterpret_cast<const void*>(&callprof_own__Unwind_ForcedUnwind)}};
  return own_function(kOwn, name);
}

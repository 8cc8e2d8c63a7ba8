#include "hook_removal.h"

#include "clock.h"
#include "code_patch.h"
#include "counting_stubs.h"
#include "function_plan.h"
#include "process.h"
#include "raw_syscall.h"

namespace callprof::rt {

bool g_remove_hooks = false;

namespace {
// Same slots as the exclusion cache: a slot here holds the function in that cache's slot
// when it got there by being folded.
uint64_t g_removed[kExclusionSlots];
// Same slots: a function found outside the plan's modules, so that its next folded calls
// do not look through the modules again (count_folded_call asks at every one).
uint64_t g_kept[kExclusionSlots];
// In the order they were removed; at most one per exclusion-cache slot, so it cannot overflow.
wire::DumpRemovedFunction g_removed_list[kExclusionSlots];
uint32_t g_removed_count = 0;
// Same slots: 1 + the function's index in g_removed_list, which is its counter's.
uint32_t g_removed_index[kExclusionSlots];
// By that index: its tail exits were rewritten (or are being).
uint8_t g_tails_removed[kExclusionSlots];

// Per plan module, its counting stubs: 0 not mapped yet, kNoStubs when they could not be.
constexpr uint64_t kNoStubs = 1;
uint64_t g_stub_areas[kMaxPlanModules];
int g_stub_lock = 0;
uint32_t g_counted_sites = 0, g_uncounted_sites = 0;

int32_t tls_offset_of_state() {
  uint64_t thread_pointer;
  asm("mov %%fs:0, %0" : "=r"(thread_pointer));
  return int32_t(int64_t(reinterpret_cast<uint64_t>(&t_state)) - int64_t(thread_pointer));
}

// The counting stub of removed function `index` for a call at `site`; 0 when its module has
// none, or (*later) while another thread maps them.
uint64_t counting_stub(uint64_t site, uint32_t index, bool* later) {
  uint32_t m;
  uint64_t lo, hi;
  if (!plan_module_range(site, &m, &lo, &hi)) return 0;
  uint64_t area = __atomic_load_n(&g_stub_areas[m], __ATOMIC_ACQUIRE);
  if (area == 0) {
    if (__atomic_exchange_n(&g_stub_lock, 1, __ATOMIC_ACQUIRE) != 0) {
      *later = true;
      return 0;
    }
    area = g_stub_areas[m];
    if (area == 0) {
      area = map_counting_stubs(lo, hi, tls_offset_of_state(), unhooked_calls_offset(), kExclusionSlots);
      __atomic_store_n(&g_stub_areas[m], area ? area : kNoStubs, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&g_stub_lock, 0, __ATOMIC_RELEASE);
  }
  return area == kNoStubs ? 0 : area + uint64_t(index) * kCountingStubBytes;
}

// The entry call at `site` (a hook call, or a patched entry's) of removed function `index`
// calls its counting stub from now on: Done (also when another thread's rewrite came
// first), Later (another thread maps the stubs or rewrites), or None (no stub within reach,
// or the call cannot change: the caller decides what becomes of it).
enum class ToStub : uint8_t { Done, Later, None };
ToStub retarget_to_stub(uint64_t site, uint32_t index) {
  bool later = false;
  const uint64_t stub = counting_stub(site, index, &later);
  if (later) return ToStub::Later;
  if (stub == 0) return ToStub::None;
  switch (retarget_call(site, stub)) {
    case Rewrite::Done:
      __atomic_fetch_add(&g_counted_sites, 1u, __ATOMIC_RELAXED);
      return ToStub::Done;
    case Rewrite::NotACall:
      return ToStub::Done;
    case Rewrite::Busy:
      return ToStub::Later;
    default:
      return ToStub::None;
  }
}
}  // namespace

bool remove_folded_function(uint64_t fn) {
  const uint32_t slot = (fn >> 4) & (kExclusionSlots - 1);
  uint64_t seen = __atomic_load_n(&g_removed[slot], __ATOMIC_RELAXED);
  if (seen == 0) {
    // Only a function of the plan's modules: another's hook calls cannot be rewritten, and
    // its library may be closed and its address reused by another function, which the
    // exclusion cache would then take for this one.
    if (__atomic_load_n(&g_kept[slot], __ATOMIC_RELAXED) == fn) return false;
    if (!in_plan_module(fn)) {
      __atomic_store_n(&g_kept[slot], fn, __ATOMIC_RELAXED);
      return false;
    }
    if (__atomic_compare_exchange_n(&g_removed[slot], &seen, fn, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      // Claimed here: marked as folded (above) before the hooks can see it excluded.
      uint64_t held = 0;
      if (__atomic_compare_exchange_n(&g_excluded_functions[slot], &held, fn, false, __ATOMIC_RELEASE,
                                      __ATOMIC_RELAXED)) {
        const uint32_t at = __atomic_fetch_add(&g_removed_count, 1u, __ATOMIC_RELAXED);
        __atomic_store_n(&g_removed_index[slot], at + 1, __ATOMIC_RELAXED);
        g_removed_list[at].tsc = ticks();
        __atomic_store_n(&g_removed_list[at].fn, fn, __ATOMIC_RELEASE);
      }
      seen = fn;
    }
  }
  // Not when another function holds either slot (a filtered-out one the exclusion cache's):
  // fn stays folded per thread, its hooks kept.
  return seen == fn && known_excluded(fn);
}

bool removed_folded_function(uint64_t fn) {
  return __atomic_load_n(&g_removed[(fn >> 4) & (kExclusionSlots - 1)], __ATOMIC_ACQUIRE) == fn;
}

// Only the call a hook returns behind: the plan lists calls by their bytes, undecoded
// (symbols/hook_call_sites.h), and only a real call instruction ends where a hook returns.
bool remove_hook_call(uint64_t hook_ret) {
  if (!g_remove_hooks || hook_ret < 5 || rewriting_refused()) return false;
  const uint64_t site = hook_ret - 5;
  return known_hook_site(site) && rewrite_call_as_nop(site, return_byte_near(site)) == Rewrite::Done;
}

namespace {

// A call whose displacement spans two cache lines cannot be retargeted atomically
// (code_patch.h): such an entry hook call of a removed function stays, and the hook counts
// its calls as the stub would.
bool displacement_crosses_line(uint64_t site) { return ((site + 1) & 63) > 60; }

// The tail-call exits (`jmp __cyg_profile_func_exit`) of `fn` become `ret`, once per
// function: each waits for another thread's rewrite (code_patch.h), a bounded time.
constexpr uint32_t kTailExitWaits = 1000;
void remove_tail_exits(uint64_t fn) {
  uint64_t tails[16];
  const uint32_t n = tail_exits_of(fn, tails, 16);
  for (uint32_t i = 0; i < n; ++i) rewrite_jump_as_return(tails[i], kTailExitWaits);
}

}  // namespace

bool counts_unhooked_calls() { return process().config.fold_counts != wire::kFoldCountsNone; }

// Whether the entry of `fn` returning to `hook_ret` is to count its calls once rewritten: by
// default only an entry in fn's own code (a real call); an inlined copy's entry is in its
// host's, and its runs are no calls in the program built without hooks, so it becomes a nop
// (a counting stub cost 1.35 ns a call on zstd, where inlined copies made 36 M calls).
bool counted_entry(uint64_t fn, uint64_t hook_ret) {
  return counts_unhooked_calls() &&
         (process().config.fold_counts == wire::kFoldCountsAll || !inlined_hooks(fn, hook_ret));
}

bool entry_call_stays(uint64_t fn, uint64_t hook_ret) {
  return hook_ret >= 5 && displacement_crosses_line(hook_ret - 5) && counted_entry(fn, hook_ret);
}

bool count_unhooked_call(ThreadState* s, uint64_t fn) {
  const uint32_t index = removed_index(fn);
  if (index == UINT32_MAX) return false;
  // One instruction, as in the stubs: a signal handler's stub call between a load and a
  // store would otherwise be lost.
  asm volatile("incq %0" : "+m"(s->unhooked_calls[index]));
  return true;
}

void remove_entry_hooks(uint64_t fn, uint64_t hook_ret) {
  // record --fold-counts none, attach, an inlined copy: a folded function's entries become
  // nops as a filtered-out one's.
  if (!removed_folded_function(fn) || !counted_entry(fn, hook_ret)) {
    if (!remove_hook_call(hook_ret)) return;
    remove_tail_exits(fn);
    if (counts_unhooked_calls())  // an inlined copy of a removed folded function
      if (const uint32_t index = removed_index(fn); index != UINT32_MAX)
        __atomic_fetch_or(&g_removed_list[index].flags, wire::kRemovedInlinedCopiesUncounted, __ATOMIC_RELAXED);
    return;
  }
  // A removed function pushes no frame at its entries, so its exits may go first: its tail
  // exits go at its first entry met here, also when that entry's call stays.
  const uint32_t index = removed_index(fn);
  if (index == UINT32_MAX || !g_remove_hooks || hook_ret < 5 || rewriting_refused()) return;
  const uint64_t site = hook_ret - 5;
  // Where it can have no stub, a nop: its calls since are not counted.
  if (!displacement_crosses_line(site) && known_hook_site(site) && retarget_to_stub(site, index) == ToStub::None &&
      rewrite_call_as_nop(site, return_byte_near(site)) == Rewrite::Done)
    note_uncounted_site();
  if (!__atomic_exchange_n(&g_tails_removed[index], uint8_t(1), __ATOMIC_RELAXED)) remove_tail_exits(fn);
}

void remove_exit_hook(uint64_t fn, uint64_t hook_ret) {
  if (remove_hook_call(hook_ret) || !g_remove_hooks || rewriting_refused()) return;
  // Only a tail exit still a `jmp` is tried, once: an exit that stays a hook call for good
  // (no atomic rewrite for it) must not take the rewriting lock at every call.
  uint64_t tails[16];
  const uint32_t n = tail_exits_of(fn, tails, 16);
  for (uint32_t i = 0; i < n; ++i)
    if (*reinterpret_cast<const volatile uint8_t*>(tails[i]) == 0xe9) rewrite_jump_as_return(tails[i]);
}

uint32_t removed_index(uint64_t fn) {
  const uint32_t slot = (fn >> 4) & (kExclusionSlots - 1);
  const uint32_t at = __atomic_load_n(&g_removed_index[slot], __ATOMIC_RELAXED);
  return at != 0 && __atomic_load_n(&g_removed_list[at - 1].fn, __ATOMIC_ACQUIRE) == fn ? at - 1 : UINT32_MAX;
}

PatchedEntry rewrite_patched_entry(uint64_t site, uint64_t fn) {
  if (!counts_unhooked_calls() || !removed_folded_function(fn)) return PatchedEntry::Nops;
  const uint32_t index = removed_index(fn);
  if (index == UINT32_MAX) return PatchedEntry::Later;
  if (displacement_crosses_line(site)) return PatchedEntry::Stays;
  switch (retarget_to_stub(site, index)) {
    case ToStub::Done:
      return PatchedEntry::Counting;
    case ToStub::Later:
      return PatchedEntry::Later;
    case ToStub::None:
      break;
  }
  return PatchedEntry::NopsUncounted;
}

void note_uncounted_site() { __atomic_fetch_add(&g_uncounted_sites, 1u, __ATOMIC_RELAXED); }

void reset_hook_removal_after_fork() { g_stub_lock = 0; }

StubSites stub_sites() {
  return {__atomic_load_n(&g_counted_sites, __ATOMIC_RELAXED), __atomic_load_n(&g_uncounted_sites, __ATOMIC_RELAXED)};
}

uint32_t removed_function_count() { return __atomic_load_n(&g_removed_count, __ATOMIC_RELAXED); }

wire::DumpRemovedFunction removed_function(uint32_t i) {
  const uint64_t fn = __atomic_load_n(&g_removed_list[i].fn, __ATOMIC_ACQUIRE);
  return {fn, fn ? g_removed_list[i].tsc : 0, fn ? __atomic_load_n(&g_removed_list[i].flags, __ATOMIC_RELAXED) : 0, 0};
}

}  // namespace callprof::rt

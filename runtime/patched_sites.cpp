// See patched_sites.h.
#include "patched_sites.h"

#include <errno.h>
#include <sys/mman.h>

#include "code_patch.h"
#include "hook_removal.h"
#include "near_code.h"
#include "raw_syscall.h"

extern "C" void callprof_patched_entry();  // patched_trampolines.S

namespace callprof::rt {
namespace {

struct Range {
  uint64_t start, end;
};
constexpr uint32_t kMaxRanges = 64;
Range g_ranges[kMaxRanges];
uint32_t g_range_count = 0;

// A site and the bytes it had before it became a call.
struct Site {
  uint64_t at;
  uint8_t original[5];
  uint8_t patched;
  uint8_t reserved[2];
};
Site* g_sites = nullptr;
uint64_t g_site_count = 0, g_sites_bytes = 0;

// Stubs (`jmp *0(%rip)` and the entry trampoline's address), each within a call's reach
// (rel32) of the modules that use it; kept for the process's life.
constexpr uint32_t kMaxStubs = 64;
uint64_t g_stubs[kMaxStubs];
uint32_t g_stub_count = 0;
constexpr uint64_t kPage = 4096;
constexpr uint64_t kRunSpan = 1ull << 30;  // half a call's reach: a run of sites shares a stub

// A stub within reach of [lo, hi]: an existing one, or a page mapped near them.
uint64_t stub_for(uint64_t lo, uint64_t hi) {
  for (uint32_t i = 0; i < g_stub_count; ++i)
    if (within_call_reach(lo, hi, g_stubs[i], kPage)) return g_stubs[i];
  if (g_stub_count == kMaxStubs) return 0;
  auto* code = static_cast<uint8_t*>(map_within_reach(lo, hi, kPage));
  if (!code) return 0;
  const uint8_t jump[6] = {0xff, 0x25, 0, 0, 0, 0};  // jmp *0(%rip)
  const uint64_t target = reinterpret_cast<uint64_t>(&callprof_patched_entry);
  __builtin_memcpy(code, jump, sizeof jump);
  __builtin_memcpy(code + sizeof jump, &target, sizeof target);
  if (!seal_near_code(code, kPage)) return 0;
  return g_stubs[g_stub_count++] = reinterpret_cast<uint64_t>(code);
}

// Sorts g_sites by address (heapsort: no allocation, no library), so that a site is found
// by bisection and the pages are written in order.
void sort_sites() {
  auto sift = [](uint64_t root, uint64_t end) {
    for (uint64_t child; (child = 2 * root + 1) < end; root = child) {
      if (child + 1 < end && g_sites[child].at < g_sites[child + 1].at) ++child;
      if (g_sites[root].at >= g_sites[child].at) return;
      const Site t = g_sites[root];
      g_sites[root] = g_sites[child];
      g_sites[child] = t;
    }
  };
  for (uint64_t i = g_site_count / 2; i-- > 0;) sift(i, g_site_count);
  for (uint64_t end = g_site_count; end > 1;) {
    const Site t = g_sites[0];
    g_sites[0] = g_sites[--end];
    g_sites[end] = t;
    sift(0, end);
  }
}

Site* find_site(uint64_t at) {
  uint64_t lo = 0, hi = g_site_count;
  while (lo < hi) {
    const uint64_t mid = (lo + hi) / 2;
    if (g_sites[mid].at < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < g_site_count && g_sites[lo].at == at ? &g_sites[lo] : nullptr;
}

}  // namespace

bool entry_nops(const uint8_t* b) {
  if (b[0] == 0x90 && b[1] == 0x90 && b[2] == 0x90 && b[3] == 0x90 && b[4] == 0x90) return true;
  return b[0] == 0x0f && b[1] == 0x1f && b[2] == 0x44 && b[3] == 0x00;
}

void remove_site(uint64_t at, uint64_t fn) {
  Site* s = find_site(at);
  if (!s || !__atomic_load_n(&s->patched, __ATOMIC_RELAXED) || !g_remove_hooks) return;
  const PatchedEntry fate = rewrite_patched_entry(at, fn);
  if (fate == PatchedEntry::Stays || fate == PatchedEntry::Later) return;
  // A call of its counting stub stays patched: a detach gives it its nops back too.
  if (fate == PatchedEntry::Counting) return;
  const Rewrite r = restore_call(at, s->original, true);
  if (r == Rewrite::Done && fate == PatchedEntry::NopsUncounted) note_uncounted_site();
  if (r == Rewrite::Done || r == Rewrite::NotACall) __atomic_store_n(&s->patched, uint8_t(0), __ATOMIC_RELAXED);
}

namespace {

// Lists the sites of every range whose bytes are still the compiler's nops.
bool collect_sites() {
  uint64_t count = 0;
  for (uint32_t i = 0; i < g_range_count; ++i) count += (g_ranges[i].end - g_ranges[i].start) / 8;
  const uint64_t bytes = (count * sizeof(Site) + kPage - 1) & ~(kPage - 1);
  if (bytes > g_sites_bytes) {
    if (g_sites) sys::munmap(g_sites, g_sites_bytes);
    g_sites = static_cast<Site*>(sys::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS));
    g_sites_bytes = g_sites ? bytes : 0;
    if (!g_sites) return false;
  }
  g_site_count = 0;
  for (uint32_t i = 0; i < g_range_count; ++i)
    for (uint64_t p = g_ranges[i].start; p + 8 <= g_ranges[i].end; p += 8) {
      const uint64_t at = *reinterpret_cast<const uint64_t*>(p);
      if (at == 0 || !entry_nops(reinterpret_cast<const uint8_t*>(at))) continue;
      Site& s = g_sites[g_site_count++];
      s = Site{};
      s.at = at;
      __builtin_memcpy(s.original, reinterpret_cast<const void*>(at), 5);
    }
  sort_sites();
  return true;
}

}  // namespace

bool add_patchable_range(uint64_t start, uint64_t end) {
  if (g_range_count == kMaxRanges || end <= start || start % 8 != 0) return false;
  g_ranges[g_range_count++] = Range{start, end};
  return true;
}

void clear_patchable_ranges() { g_range_count = 0; }
bool patchable_ranges() { return g_range_count != 0; }
bool sites_patched() {
  for (uint64_t i = 0; i < g_site_count; ++i)
    if (g_sites[i].patched) return true;
  return false;
}

// The sites become calls of their stub; 0, or the error (every site as it was then).
int patch_sites() {
  if (!collect_sites()) return -ENOMEM;
  // Sites in address order; each run of them within half a call's reach of its first
  // shares a stub.
  uint64_t stub = 0, run_end = 0;
  for (uint64_t i = 0; i < g_site_count; ++i) {
    if (i == run_end) {
      uint64_t j = i;
      while (j < g_site_count && g_sites[j].at - g_sites[i].at < kRunSpan) ++j;
      run_end = j;
      stub = stub_for(g_sites[i].at, g_sites[j - 1].at);
    }
    if (!stub) continue;  // no page within reach: these functions stay unseen
    Site& s = g_sites[i];
    if (!write_call_while_stopped(s.at, stub)) {
      for (uint64_t k = 0; k < i; ++k)  // nothing changed, as promised
        if (g_sites[k].patched) write_while_stopped(g_sites[k].at, g_sites[k].original, 5), g_sites[k].patched = 0;
      end_stopped_writes();
      const uint32_t e = rewrite_counts().refused_errno;
      return e ? -int(e) : -EPERM;
    }
    s.patched = 1;
  }
  end_stopped_writes();
  return 0;
}

void restore_sites() {
  for (uint64_t i = 0; i < g_site_count; ++i) {
    Site& s = g_sites[i];
    if (!s.patched) continue;
    Rewrite r;
    while ((r = restore_call(s.at, s.original)) == Rewrite::Busy) sys::call(SYS_sched_yield);
    // CrossesLine or Refused: the call stays, into a dormant trampoline.
    s.patched = r == Rewrite::Done || r == Rewrite::NotACall ? 0 : 1;
  }
}

}  // namespace callprof::rt

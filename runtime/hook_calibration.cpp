// The calibration runs real instrumented loops (calibration_loop.c, built with each
// compiler's hooks, calling them through the PLT as programs do) and the same loops built
// without hooks, on the first thread's own state (the hooks' speed depends on where its
// memory lies: a scratch state elsewhere measured 12 ns where the thread paid 21). Per call,
// a hooked loop's extra time is the whole cost of the hooks in that situation:
//   leaf      a leaf called from a loop; the part inside the leaf's own self time ("inner")
//             is its measured self time minus its plain cost, the rest lands in the caller;
//   excluded  the same leaf, classified as excluded; folded: the same, folded (auto-fold);
//   caller    a function that calls the leaf: the extra time per pair less the leaf's;
//   recursive a tiny doubly recursive function (what the hooks stop the compiler doing,
//             turning half the calls into a loop, is part of their cost there).
// Each round measures every loop back to back; per situation the lower quartile of the
// rounds counts, scaled by the time the machine took away over the whole calibration
// (StolenTime). The minimum of each loop proved unstable (differences of minima of noisy
// samples); the median alone, like any quiet round, measured 4-9 % below what programs then
// paid: it leaves out the stops that every longer run pays. Costs are kept in 1/65536
// ticks: whole ticks lost up to half a nanosecond per call.
#include "hook_calibration.h"

#include "calibration_check.h"
#include "clock.h"
#include "code_patch.h"
#include "patched_sites.h"

#define CALIB_DECLARE(c)                                                             \
  unsigned long callprof_calib_leaf_##c##_hooked(unsigned long);                     \
  unsigned long callprof_calib_excluded_##c##_hooked(unsigned long);                 \
  unsigned long callprof_calib_caller_##c##_hooked(unsigned long);                   \
  unsigned long callprof_calib_recursive_##c##_hooked(unsigned long);                \
  unsigned long callprof_calib_loop_##c##_hooked(unsigned long, int, unsigned long); \
  unsigned long callprof_calib_loop_##c##_plain(unsigned long, int, unsigned long);

extern "C" {
#if CALLPROF_CALIB_gcc
CALIB_DECLARE(gcc)
#endif
#if CALLPROF_CALIB_clang
CALIB_DECLARE(clang)
#endif
#if CALLPROF_CALIB_patched
// Built with -fpatchable-function-entry=5 instead of the hooks ("hooked": patched here).
CALIB_DECLARE(patched)
void callprof_patched_entry();  // patched_trampolines.S
#endif
}

namespace callprof::rt {
namespace {

using Loop = unsigned long (*)(unsigned long, int, unsigned long);
struct Workload {
  Loop hooked, plain;
  uint64_t leaf, excluded, loop;  // function addresses, as the hooks see them
};

constexpr int kRounds = 15;
constexpr unsigned long kCalls = 4000;
constexpr unsigned long kRecursionDepth = 12;  // 465 calls per top-level call
constexpr unsigned long kRecursiveTops = 8;
constexpr int kLeaf = 0, kExcluded = 1, kCaller = 2, kRecursive = 3;
volatile unsigned long g_sink;
uint64_t g_excluded_fn;

uint32_t classify_for_calibration(uint64_t fn) { return fn == g_excluded_fn ? wire::kNodeExcluded : 0; }

// Calls the recursive function makes from one top-level call of depth d: 2 fib(d+1) - 1.
uint64_t recursive_calls(unsigned long d) {
  uint64_t a = 0, b = 1;
  for (unsigned long i = 0; i <= d; ++i) {
    const uint64_t t = a + b;
    a = b;
    b = t;
  }
  return 2 * a - 1;
}

// Ticks one run of a loop takes (of n calls, but for the recursive one's tops).
uint64_t time_loop(Loop loop, int kind, unsigned long n = kCalls) {
  if (kind == kRecursive) n = kRecursiveTops;
  uint64_t start = ticks();
  g_sink = loop(n, kind, kRecursionDepth);
  return ticks() - start;
}

// Self ticks recorded so far for the leaf called by the loop itself.
uint64_t leaf_self_ticks(const ThreadProfile& p, const Workload& w) {
  for (uint32_t i = 1; i < p.node_count(); ++i)
    if (p.nodes()[i].fn == w.leaf && p.nodes()[p.nodes()[i].parent].fn == w.loop) return p.nodes()[i].self_ticks;
  return 0;
}

// The lower quartile (sorts v): a round the machine neither stopped nor slowed.
uint64_t quiet(uint64_t* v, int n) {
  for (int i = 1; i < n; ++i)  // insertion sort: 15 values
    for (int j = i; j > 0 && v[j] < v[j - 1]; --j) {
      uint64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[n / 4];
}

// (a - b) per call in 1/kHookCostScale ticks, 0 when b >= a.
uint64_t per_call(uint64_t a, uint64_t b, uint64_t calls) { return a > b ? (a - b) * wire::kHookCostScale / calls : 0; }

// Time the machine takes from a running thread without a context switch (this VM's
// hypervisor stops it for ~24 us some 3,200 times a second, 7.5-8 % of all time; interrupts
// on bare metal), and slower phases of a shared core, are in every program's measured time
// in proportion to its length. Quiet rounds leave them out: each quiet cost is scaled by
// how much longer the hooked loops took in all than their quiet rounds would have, over
// both compilers' calibrations (some 16 ms). A round over twice its loop's quiet time was
// preempted (in a program, time shown off-CPU): left out.
struct StolenTime {
  uint64_t spent = 0, quiet_spent = 0;

  void add(const uint64_t* rounds) {
    uint64_t sorted[kRounds];
    for (int r = 0; r < kRounds; ++r) sorted[r] = rounds[r];
    const uint64_t q = quiet(sorted, kRounds);
    for (int r = 0; r < kRounds; ++r)
      if (rounds[r] <= 2 * q) {
        spent += rounds[r];
        quiet_spent += q;
      }
  }
  void scale(wire::DumpHookCosts& c) const {
    if (spent <= quiet_spent) return;
    uint64_t* const costs[] = {&c.leaf_inner, &c.leaf_outer, &c.excluded, &c.folded, &c.caller, &c.recursive};
    for (uint64_t* v : costs) *v = *v * spent / quiet_spent;
  }
};

// The check of a cached calibration (calibration_store.h): the leaf loop's cost per call
// over a few rounds, the lowest that measured one (calibration_check.h). A full calibration
// measures it too, first, so the two are the same measurement.
constexpr int kCheckRounds = 3;
constexpr unsigned long kCheckCalls = kCalls / 2;
uint64_t check_cost(const Workload& w) {
  time_loop(w.hooked, kLeaf, kCheckCalls);  // warm up: nodes, caches
  uint64_t v[kCheckRounds];
  for (int r = 0; r < kCheckRounds; ++r) {
    const uint64_t plain = time_loop(w.plain, kLeaf, kCheckCalls);
    v[r] = per_call(time_loop(w.hooked, kLeaf, kCheckCalls), plain, kCheckCalls);
  }
  return check_value(v, kCheckRounds);
}

// The quiet costs of one compiler's hooks and its check value; the hooked loops' rounds go
// to `stolen`.
void calibrate(ThreadState* s, const Workload& w, wire::DumpHookCosts* cost, uint64_t* check, StolenTime* stolen) {
  g_excluded_fn = w.excluded;
  *check = check_cost(w);
  for (int kind = kLeaf; kind <= kRecursive; ++kind) time_loop(w.hooked, kind);  // warm up: nodes, caches
  uint64_t total[kRounds], inner[kRounds], excluded[kRounds], folded[kRounds], pair[kRounds], recursive[kRounds];
  constexpr int kHookedLoops = 5;
  uint64_t hooked_rounds[kHookedLoops][kRounds];
  const uint64_t recursive_total = recursive_calls(kRecursionDepth) * kRecursiveTops;
  for (int r = 0; r < kRounds; ++r) {
    const uint64_t plain = time_loop(w.plain, kLeaf);
    const uint64_t self_before = leaf_self_ticks(s->profile, w);
    const uint64_t hooked = time_loop(w.hooked, kLeaf);
    const uint64_t leaf = leaf_self_ticks(s->profile, w) - self_before;
    const uint64_t excl = time_loop(w.hooked, kExcluded);
    s->profile.fold(w.excluded);  // the same calls, folded at run time (auto-fold)
    const uint64_t fold = time_loop(w.hooked, kExcluded);
    s->profile.clear_folds();
    const uint64_t caller_plain = time_loop(w.plain, kCaller);
    const uint64_t caller_hooked = time_loop(w.hooked, kCaller);
    const uint64_t rec_plain = time_loop(w.plain, kRecursive);
    const uint64_t rec_hooked = time_loop(w.hooked, kRecursive);
    // The plain loop's time per call stands for the leaf's own cost.
    total[r] = per_call(hooked, plain, kCalls);
    inner[r] = per_call(leaf, plain, kCalls);
    excluded[r] = per_call(excl, plain, kCalls);
    folded[r] = per_call(fold, plain, kCalls);
    pair[r] = per_call(caller_hooked, caller_plain, kCalls);
    recursive[r] = per_call(rec_hooked, rec_plain, recursive_total);
    const uint64_t hooked_loops[kHookedLoops] = {hooked, excl, fold, caller_hooked, rec_hooked};
    for (int k = 0; k < kHookedLoops; ++k) hooked_rounds[k][r] = hooked_loops[k];
  }
  for (const uint64_t* rounds : hooked_rounds) stolen->add(rounds);
  const uint64_t t = quiet(total, kRounds), p = quiet(pair, kRounds);
  uint64_t i = quiet(inner, kRounds);
  if (i > t) i = t;
  *cost = wire::DumpHookCosts{
      i, t - i, quiet(excluded, kRounds), quiet(folded, kRounds), p > t ? p - t : 0, quiet(recursive, kRounds)};
}

#if CALLPROF_CALIB_patched
// The patched workload's entries become calls of the entry trampoline, as a patched
// program's do (through a stub there: here the trampoline is within a call's reach). Only
// the calibration calls these functions, so plain stores do; false when they are not the
// compiler's nops or the system refuses writable code (then the hooks' costs stand in).
bool patch_own_entries() {
  using Fn = unsigned long (*)(unsigned long);
  const uint64_t functions[] = {reinterpret_cast<uint64_t>(static_cast<Fn>(callprof_calib_leaf_patched_hooked)),
                                reinterpret_cast<uint64_t>(static_cast<Fn>(callprof_calib_excluded_patched_hooked)),
                                reinterpret_cast<uint64_t>(static_cast<Fn>(callprof_calib_caller_patched_hooked)),
                                reinterpret_cast<uint64_t>(static_cast<Fn>(callprof_calib_recursive_patched_hooked)),
                                reinterpret_cast<uint64_t>(&callprof_calib_loop_patched_hooked)};
  bool ok = true;
  for (uint64_t fn : functions) {
    const auto* at = reinterpret_cast<const uint8_t*>(fn);
    if (at[0] == 0xf3 && at[1] == 0x0f && at[2] == 0x1e && at[3] == 0xfa) at += 4;  // endbr64 first
    ok = ok && entry_nops(at) &&
         write_call_while_stopped(reinterpret_cast<uint64_t>(at), reinterpret_cast<uint64_t>(&callprof_patched_entry));
  }
  end_stopped_writes();
  return ok;
}
#endif

// One compiler's copy of the calibration functions (calibration_loop.c, built by each);
// false when this runtime has none for `set`.
bool workload_of(uint32_t set, Workload* w) {
#define CALLPROF_CALIB_WORKLOAD(cc)                                                  \
  *w = Workload{callprof_calib_loop_##cc##_hooked, callprof_calib_loop_##cc##_plain, \
                reinterpret_cast<uint64_t>(&callprof_calib_leaf_##cc##_hooked),      \
                reinterpret_cast<uint64_t>(&callprof_calib_excluded_##cc##_hooked),  \
                reinterpret_cast<uint64_t>(&callprof_calib_loop_##cc##_hooked)};     \
  return true
#if CALLPROF_CALIB_gcc
  if (set == wire::kHooksGcc) {
    CALLPROF_CALIB_WORKLOAD(gcc);
  }
#endif
#if CALLPROF_CALIB_clang
  if (set == wire::kHooksClang) {
    CALLPROF_CALIB_WORKLOAD(clang);
  }
#endif
#if CALLPROF_CALIB_patched
  if (set == wire::kHooksPatched) {
    CALLPROF_CALIB_WORKLOAD(patched);
  }
#endif
#undef CALLPROF_CALIB_WORKLOAD
  return false;
}

// Runs `measure` on thread state `s` with the calibration's classification; afterwards the
// thread's profile is as new.
template <typename Measure>
void on_thread(ThreadState* s, Measure measure) {
  ThreadState* saved = t_state;
  t_state = s;
  s->profile.set_callbacks(classify_for_calibration, nullptr);
  measure();
  t_state = saved;
  // The calibration's nodes stay, with no calls: the recorder leaves them out.
  s->profile.restart(ticks());
}

}  // namespace

void calibrate_hooks(ThreadState* s, wire::DumpHookCosts* costs, uint64_t* check, uint8_t compilers) {
  on_thread(s, [&] {
    StolenTime stolen;
    Workload w;
    for (uint32_t set = 0; set < wire::kHookSets; ++set) {
      if (!(compilers & (1u << set)) || !workload_of(set, &w)) continue;
#if CALLPROF_CALIB_patched
      if (set == wire::kHooksPatched && !patch_own_entries()) continue;
#endif
      calibrate(s, w, &costs[set], &check[set], &stolen);
    }
    for (uint32_t i = 0; i < wire::kHookSets; ++i) stolen.scale(costs[i]);
  });
}

uint64_t check_hooks(ThreadState* s, uint32_t set) {
  Workload w;
  if (set == wire::kHooksPatched || !workload_of(set, &w)) return 0;
  uint64_t cost = 0;
  on_thread(s, [&] {
    g_excluded_fn = w.excluded;
    cost = check_cost(w);
  });
  return cost;
}

double measure_tsc_rate() {
  uint64_t tsc0 = 0, ns0 = 0, tsc1 = 0, ns1 = 0;
  calibration_pair(CLOCK_MONOTONIC, &tsc0, &ns0);
  // At least 2 ms between the pairs keeps the rate within about 0.1 %.
  do calibration_pair(CLOCK_MONOTONIC, &tsc1, &ns1);
  while (ns1 - ns0 < 2000000);
  return double(tsc1 - tsc0) / double(ns1 - ns0);
}

}  // namespace callprof::rt

// The calibration runs a real instrumented loop (calibration_loop.c, built with the
// compiler's hooks, calling them through the PLT as programs do) and the same loop built
// without hooks, on the first thread's own state (the hooks' speed depends on where its
// memory lies: a scratch state elsewhere measured 12 ns where the thread paid 21). Per call, the hooked loop's extra time is the
// whole cost of the hooks; the part of it inside the leaf's own self time ("inner") is the
// leaf's measured self time minus its plain cost; the rest lands in the caller ("outer").
// The same with a leaf classified as excluded gives the cost of an excluded call. Each
// round measures the three loops back to back; the median round counts (the minimum of
// each loop separately proved unstable: differences of minima of noisy samples).
#include "hook_calibration.h"

#include "clock.h"

extern "C" {
unsigned long callprof_calib_leaf_hooked(unsigned long);
unsigned long callprof_calib_excluded_hooked(unsigned long);
unsigned long callprof_calib_loop_hooked(unsigned long n, int excluded);
unsigned long callprof_calib_loop_plain(unsigned long n, int excluded);
}

namespace callprof::rt {
namespace {

constexpr int kRounds = 15;
constexpr unsigned long kCalls = 5000;
volatile unsigned long g_sink;

uint32_t classify_for_calibration(uint64_t fn) {
  return fn == reinterpret_cast<uint64_t>(&callprof_calib_excluded_hooked) ? wire::kNodeExcluded : 0;
}

// Ticks one run of the loop takes.
uint64_t time_loop(unsigned long (*loop)(unsigned long, int), int excluded) {
  uint64_t start = ticks();
  g_sink = loop(kCalls, excluded);
  return ticks() - start;
}

// Self ticks recorded so far for the hooked leaf.
uint64_t leaf_self_ticks(const ThreadProfile& p) {
  for (uint32_t i = 1; i < p.node_count(); ++i)
    if (p.nodes()[i].fn == reinterpret_cast<uint64_t>(&callprof_calib_leaf_hooked)) return p.nodes()[i].self_ticks;
  return 0;
}

uint64_t median(uint64_t* v, int n) {
  for (int i = 1; i < n; ++i)  // insertion sort: 15 values
    for (int j = i; j > 0 && v[j] < v[j - 1]; --j) {
      uint64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[n / 2];
}

}  // namespace

void calibrate_hooks(ThreadState* s, HookCost* cost) {
  ThreadState* saved = t_state;
  t_state = s;
  s->profile.set_callbacks(classify_for_calibration, nullptr);
  time_loop(callprof_calib_loop_hooked, 0);  // warm up: nodes, caches, branch predictors
  uint64_t total[kRounds], inner[kRounds], excluded[kRounds];
  for (int r = 0; r < kRounds; ++r) {
    uint64_t plain = time_loop(callprof_calib_loop_plain, 0);
    uint64_t self_before = leaf_self_ticks(s->profile);
    uint64_t hooked = time_loop(callprof_calib_loop_hooked, 0);
    uint64_t leaf = leaf_self_ticks(s->profile) - self_before;
    uint64_t excl = time_loop(callprof_calib_loop_hooked, 1);
    // Per call, in ticks; the plain loop's time per call stands for the leaf's own cost.
    total[r] = hooked > plain ? (hooked - plain) / kCalls : 0;
    inner[r] = leaf > plain ? (leaf - plain) / kCalls : 0;
    excluded[r] = excl > plain ? (excl - plain) / kCalls : 0;
  }
  t_state = saved;
  // The calibration's three nodes stay, with no calls: the recorder leaves them out.
  s->profile.restart(ticks());
  uint64_t t = median(total, kRounds), i = median(inner, kRounds);
  if (i > t) i = t;
  *cost = HookCost{i, t - i, median(excluded, kRounds)};
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

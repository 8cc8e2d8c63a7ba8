// The calibration runs a real instrumented loop (calibration_loop.c, built with the
// compiler's hooks, calling them through the PLT as programs do) and the same loop built
// without hooks, on a scratch thread state. Per call, the hooked loop's extra time is the
// whole cost of the hooks; the part of it inside the leaf's own self time ("inner") is the
// leaf's measured self time minus its plain cost; the rest lands in the caller ("outer").
// The same with a leaf classified as excluded gives the cost of an excluded call. The
// cheapest of several rounds is kept: interruptions only add.
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

constexpr int kRounds = 8;
constexpr unsigned long kCalls = 2000;
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

void measure(HookCost* cost) {
  ThreadState* s = attach_scratch_thread(64);
  if (!s) return;
  s->profile.set_callbacks(classify_for_calibration, nullptr);
  t_state = s;
  uint64_t plain = UINT64_MAX, hooked = UINT64_MAX, leaf = UINT64_MAX, excluded = UINT64_MAX;
  for (int r = 0; r < kRounds; ++r) {
    uint64_t p = time_loop(callprof_calib_loop_plain, 0);
    uint64_t self_before = leaf_self_ticks(s->profile);
    uint64_t h = time_loop(callprof_calib_loop_hooked, 0);
    uint64_t l = leaf_self_ticks(s->profile) - self_before;
    uint64_t e = time_loop(callprof_calib_loop_hooked, 1);
    if (p < plain) plain = p;
    if (h < hooked) hooked = h, leaf = l;
    if (e < excluded) excluded = e;
  }
  t_state = nullptr;
  release_scratch_thread(s);
  // Per call, in ticks; the plain loop's time per call stands for the leaf's own cost.
  auto per_call = [](uint64_t t) { return t / kCalls; };
  uint64_t total = hooked > plain ? per_call(hooked - plain) : 0;
  uint64_t inner = leaf > plain ? per_call(leaf - plain) : 0;
  if (inner > total) inner = total;
  *cost = HookCost{inner, total - inner, excluded > plain ? per_call(excluded - plain) : 0};
}

}  // namespace

void calibrate_hooks(HookCost* cost, double* ticks_per_ns, bool measure_hooks) {
  *cost = HookCost{0, 0, 0};
  uint64_t tsc0 = 0, ns0 = 0, tsc1 = 0, ns1 = 0;
  calibration_pair(CLOCK_MONOTONIC, &tsc0, &ns0);
  if (measure_hooks) measure(cost);
  // At least 2 ms between the pairs keeps the rate within about 0.1 %.
  do calibration_pair(CLOCK_MONOTONIC, &tsc1, &ns1);
  while (ns1 - ns0 < 2000000);
  *ticks_per_ns = double(tsc1 - tsc0) / double(ns1 - ns0);
}

}  // namespace callprof::rt

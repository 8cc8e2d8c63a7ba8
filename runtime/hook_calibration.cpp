// The calibration runs the real exported hooks, called through pointers as instrumented
// code calls them through its PLT, on a scratch thread state: a parent frame, then many
// enter/exit pairs of a leaf. The leaf's own self time per call is the part of a call's
// cost that lands inside the callee ("inner"); the rest of the time per pair lands in the
// caller ("outer"). The cheapest of several rounds is kept: interruptions only add.
#include "hook_calibration.h"

#include "clock.h"

extern "C" void __cyg_profile_func_enter(void*, void*);
extern "C" void __cyg_profile_func_exit(void*, void*);

namespace callprof::rt {
namespace {

using Hook = void (*)(void*, void*);
Hook volatile g_enter = __cyg_profile_func_enter;
Hook volatile g_exit = __cyg_profile_func_exit;

constexpr int kRounds = 8;
constexpr int kPairs = 2000;
char g_fake_functions[2 * kRounds + 2];  // distinct addresses that stand for functions
uint64_t g_excluded_fn = 0;

uint32_t classify_for_calibration(uint64_t fn) { return fn == g_excluded_fn ? wire::kNodeExcluded : 0; }

// Ticks per enter/exit pair of `leaf` under `parent`, and the leaf's self ticks per call.
void measure_pairs(void* parent, void* leaf, uint64_t* per_pair, uint64_t* leaf_self) {
  ThreadState* s = t_state;
  g_enter(parent, nullptr);
  uint64_t start = ticks();
  for (int i = 0; i < kPairs; ++i) {
    g_enter(leaf, nullptr);
    g_exit(leaf, nullptr);
  }
  uint64_t end = ticks();
  g_exit(parent, nullptr);
  *per_pair = (end - start) / kPairs;
  *leaf_self = 0;
  for (uint32_t i = 1; i < s->profile.node_count(); ++i) {
    const DumpNode& n = s->profile.nodes()[i];
    if (n.fn == reinterpret_cast<uint64_t>(leaf) && n.calls > 0) *leaf_self = n.self_ticks / n.calls;
  }
}

void measure(HookCost* cost) {
  ThreadState* s = attach_scratch_thread(64);
  if (!s) return;
  s->profile.set_callbacks(classify_for_calibration, nullptr);
  g_excluded_fn = reinterpret_cast<uint64_t>(&g_fake_functions[1]);
  t_state = s;
  uint64_t best_pair = UINT64_MAX, best_inner = 0, best_excluded = UINT64_MAX, unused;
  for (int r = 0; r < kRounds; ++r) {
    uint64_t pair, inner, excluded;
    measure_pairs(&g_fake_functions[0], &g_fake_functions[2 + 2 * r], &pair, &inner);
    measure_pairs(&g_fake_functions[0], &g_fake_functions[1], &excluded, &unused);
    if (pair < best_pair) best_pair = pair, best_inner = inner;
    if (excluded < best_excluded) best_excluded = excluded;
  }
  t_state = nullptr;
  release_scratch_thread(s);
  if (best_inner > best_pair) best_inner = best_pair;
  *cost = HookCost{best_inner, best_pair - best_inner, best_excluded};
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

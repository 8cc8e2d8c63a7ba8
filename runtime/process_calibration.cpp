// The process's hooks' costs: inherited from the recording, cached and checked, or measured.
#include "process_calibration.h"

#include "calibration_check.h"
#include "calibration_store.h"
#include "hook_calibration.h"

namespace callprof::rt {
namespace {

constinit SharedCalibration g_shared_calibration{};  // what this recording's processes measured
uint8_t g_unchecked_sets = 0;                        // taken from the recorder's cache, not checked yet
uint8_t g_measured_sets = 0;                         // measured in this recording, not checked again yet

// Whether the cached costs of hook set `set` still hold here: the check measured now on
// thread state `s` within the tolerance of the cached check value, or of one of the cache's
// single measurements, whose costs are then taken (take_alternate). A failed check is taken
// once more before a full measurement (ten times its cost) is paid: the check's 0.2 ms can
// be interrupted as a whole (one in 40 recordings of zstd here: 10.8 % over, then 8.4 %).
bool cached_costs_hold(ThreadState* s, SharedCalibration& shared, uint32_t set) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    const uint64_t now = check_hooks(s, set);
    if (check_confirms(now, shared.check[set]) || take_alternate(shared, set, now)) return true;
  }
  return false;
}

// Measures the hook `sets` in full on thread state `s`: their costs and check values, the
// recording's own from now on.
void measure_sets(ThreadState* s, SharedCalibration& shared, uint8_t sets) {
  wire::DumpHookCosts measured[wire::kHookSets] = {};
  uint64_t check[wire::kHookSets] = {};
  calibrate_hooks(s, measured, check, sets);
  for (uint32_t i = 0; i < wire::kHookSets; ++i)
    if (sets & (1u << i)) {
      shared.costs[i] = measured[i];
      shared.check[i] = check[i];
    }
  shared.sets = uint8_t(shared.sets | sets);
  shared.cached_sets = uint8_t(shared.cached_sets & ~sets);
}

int64_t magnitude(int64_t x) { return x < 0 ? -x : x; }

// The change of the check loop's cost since `measured`, in thousandths: of two checks, the
// one closer to it (a check can be interrupted as a whole, as cached_costs_hold's).
int32_t check_change_permille(ThreadState* s, uint32_t set, uint64_t measured) {
  int64_t closest = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const uint64_t now = check_hooks(s, set);
    const int64_t change = int64_t(double(now) * 1000.0 / double(measured)) - 1000;
    if (attempt == 0 || magnitude(change) < magnitude(closest)) closest = change;
    if (check_confirms(now, measured)) break;
  }
  return int32_t(closest);
}

}  // namespace

double load_recording_calibration(const char* dir) {
  g_shared_calibration = load_calibration(dir);
  return g_shared_calibration.ticks_per_ns;
}

Learnt calibrate_or_inherit(ThreadState* s, uint8_t sets, wire::DumpHookCosts* costs) {
  SharedCalibration& shared = g_shared_calibration;
  const uint8_t missing = uint8_t(sets & ~shared.sets);
  g_unchecked_sets = uint8_t(sets & shared.cached_sets & ~shared.checked_sets);
  if (missing) measure_sets(s, shared, missing);
  g_measured_sets = uint8_t(sets & ~shared.cached_sets);
  for (uint32_t i = 0; i < wire::kHookSets; ++i)
    if (sets & (1u << i)) costs[i] = shared.costs[i];
  return missing ? Learnt::Measured : Learnt::Nothing;
}

uint8_t unchecked_sets() { return g_unchecked_sets; }

Learnt check_cached_costs(ThreadState* s, wire::DumpHookCosts* costs) {
  SharedCalibration& shared = g_shared_calibration;
  const uint8_t to_check = g_unchecked_sets;
  g_unchecked_sets = 0;
  for (uint32_t i = 0; i < wire::kHookSets; ++i) {
    if (!(to_check & (1u << i))) continue;
    uint8_t& outcome = cached_costs_hold(s, shared, i) ? shared.checked_sets : shared.failed_sets;
    outcome = uint8_t(outcome | 1u << i);
  }
  const uint8_t failed = uint8_t(to_check & shared.failed_sets);
  if (failed) measure_sets(s, shared, failed);
  for (uint32_t i = 0; i < wire::kHookSets; ++i)
    if (to_check & (1u << i)) costs[i] = shared.costs[i];
  if (failed) return Learnt::Measured;
  if (to_check & shared.switched_sets) return Learnt::Switched;
  return to_check ? Learnt::Checked : Learnt::Nothing;
}

uint8_t measured_sets() { return g_measured_sets; }

void recheck_measured_costs(ThreadState* s, ThreadState* busy) {
  const uint8_t sets = g_measured_sets;
  g_measured_sets = 0;
  int32_t change[wire::kHookSets] = {};
  uint8_t rechecked = 0;
  for (uint32_t i = 0; i < wire::kHookSets; ++i)
    if ((sets & (1u << i)) && g_shared_calibration.check[i] > 0) {
      change[i] = check_change_permille(s, i, g_shared_calibration.check[i]);
      rechecked = uint8_t(rechecked | 1u << i);
    }
  if (!rechecked) return;
  const uint32_t was_busy = busy ? busy->busy : 0;
  if (busy) busy->busy = 1;
  // Into the file as the recording's other processes left it: their changes stay unless ours is larger.
  save_recheck(process().config.output_dir, rechecked, change);
  if (busy) busy->busy = was_busy;
}

void share_calibration(ThreadState* s, Learnt learnt, double ticks_per_ns) {
  if (learnt == Learnt::Nothing) return;
  const uint32_t was_busy = s ? s->busy : 0;
  if (s) s->busy = 1;
  if (learnt == Learnt::Checked) {  // the file's costs hold: one in-place write
    save_checked_sets(process().config.output_dir, g_shared_calibration.checked_sets);
  } else {
    g_shared_calibration.ticks_per_ns = ticks_per_ns;
    save_calibration(process().config.output_dir, g_shared_calibration);
  }
  if (s) s->busy = was_busy;
}

}  // namespace callprof::rt

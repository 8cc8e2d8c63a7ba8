// The calibration file in a recording's directory: the TSC rate and the hooks' costs the
// runtime measured, left for the recording's later processes (runtime/calibration_store.h),
// and seeded by the recorder from its cache of earlier recordings' measurements
// (src/record/calibration_cache.h). One fixed-size record, checked by its magic and size.
// Header-only and dependency-free: included by the runtime.
#pragma once

#include <stdint.h>

#include "raw_dump.h"

namespace callprof::wire {

inline constexpr char kCalibrationMagic[8] = {'C', 'P', 'C', 'A', 'L', 'I', 'B', '5'};

// How many of the cache's other measurements a seeded file carries (CalibrationFile).
inline constexpr uint32_t kCalibrationAlternates = 8;

// Sets are bit masks of hook sets (a bit per wire::kHooks*).
struct CalibrationFile {
  char magic[8];
  uint32_t sets;         // whose costs are in `costs`
  uint32_t cached_sets;  // of them, seeded from the recorder's cache and not measured here
  double ticks_per_ns;
  DumpHookCosts costs[kHookSets];
  // The check loop's cost per call (1/kHookCostScale ticks): a leaf called from a loop, a few
  // rounds, measured the same way when a full calibration ran and when a cached one is checked.
  uint64_t check[kHookSets];
  uint32_t checked_sets;  // cached sets whose check passed in this recording
  uint32_t failed_sets;   // cached sets whose check failed: measured again here
  // The cache's measurements one by one, beside their median above: a machine whose hooks
  // cost up to 60 % more for seconds at a time (a shared core's other half busy, on the VMs
  // here) fails the median's check in those spells, and a check that confirms one of these
  // takes its costs instead of measuring anew. Seeded files only; `alternates` filled.
  uint32_t alternates;
  // Measured sets checked again at a process's exit, where the hooks' cost mattered there
  // (runtime/process_calibration.h): the check's change since the measurement in
  // thousandths (+240: the loop ran 24 % slower), the largest over the recording's processes.
  uint32_t rechecked_sets;
  int32_t recheck_change_permille[kHookSets];
  uint32_t reserved;
  DumpHookCosts alternate_costs[kCalibrationAlternates][kHookSets];
  uint64_t alternate_check[kCalibrationAlternates][kHookSets];
};
static_assert(sizeof(CalibrationFile) == 200 + 24 + kCalibrationAlternates * kHookSets * (sizeof(DumpHookCosts) + 8));

// A cached set is used when the check measures its cost within this share of the cached
// check value; otherwise the machine changed (load, frequency, host) and it is measured again.
inline constexpr double kCalibrationCheckTolerance = 0.10;

}  // namespace callprof::wire

// The calibration shared by the processes of one recording: the first process that measures
// the TSC rate and the hooks' cost leaves them in the recording's directory, and the
// processes it starts (a shell script's commands, a build's compilers) read them instead of
// measuring again, which is most of a short process's cost under callprof (about 20 ms).
// Same machine, same runtime: the numbers are the same ones within their noise. The recorder
// may seed the file from its cache of earlier recordings (src/record/calibration_cache.h):
// those sets are checked by a short loop before they are used (hook_calibration.h).
#pragma once

#include <stdint.h>

#include "wire/calibration_file.h"

namespace callprof::rt {

struct SharedCalibration {
  double ticks_per_ns = 0;  // 0: not measured
  uint8_t sets = 0;         // a bit per hook set (wire::kHooks*) whose costs are in `costs`
  uint8_t cached_sets = 0;  // of them, from the recorder's cache (wire::CalibrationFile)
  uint8_t checked_sets = 0, failed_sets = 0;
  uint8_t switched_sets = 0;  // cached sets whose check confirmed an alternate, now in `costs`
  // Measured sets checked again at a process's exit, and the largest change the recording's
  // processes saw, in thousandths (wire::CalibrationFile).
  uint8_t rechecked_sets = 0;
  int32_t recheck_change_permille[wire::kHookSets] = {};
  wire::DumpHookCosts costs[wire::kHookSets] = {};
  uint64_t check[wire::kHookSets] = {};
  // The cache's single measurements beside the median in `costs` (wire::CalibrationFile).
  uint32_t alternates = 0;
  wire::DumpHookCosts alternate_costs[wire::kCalibrationAlternates][wire::kHookSets] = {};
  uint64_t alternate_check[wire::kCalibrationAlternates][wire::kHookSets] = {};
};

// What an earlier process of the recording in `dir` measured; empty when nothing yet.
SharedCalibration load_calibration(const char* dir);
// Whether a check value measured now for hook set `set` confirms one of `c`'s alternates:
// the closest one's costs and check value then replace the median's (switched_sets).
bool take_alternate(SharedCalibration& c, uint32_t set, uint64_t now);
// Leaves `c` in `dir` for the processes that start later (written whole, then exchanged
// with the file in place), with the larger of its changes at exit and the file's.
void save_calibration(const char* dir, const SharedCalibration& c);
// Marks the cached sets `checked` as checked in the file the recorder seeded, in place: one
// aligned 4-byte write, which a reader sees whole or not at all (a file written whole and
// renamed, as above, took 0.18 ms of every recording that took the cache), added to the
// sets the file says checked, under the directory's lock; a file written whole keeps them
// where its costs are the file's.
void save_checked_sets(const char* dir, uint8_t checked);
// Adds the change of each set in `rechecked` (thousandths, `change` by set) to the file in
// place, where it is larger than the one there or none is: read, then written back, two
// aligned writes (the file written whole and exchanged, as above, took 0.45 ms of such an
// exit), the recording's directory locked meanwhile (flock), as it is while the file is
// written whole, which keeps the changes the file holds then.
void save_recheck(const char* dir, uint8_t rechecked, const int32_t* change);

}  // namespace callprof::rt

// The recorder's cache of the hooks' calibration (docs/design.md, "Compensation"): measuring
// the TSC rate and the hooks' costs is some 11 ms of every recording, most of a short
// program's cost under callprof. The cache keeps the last full calibrations made on this
// machine (same boot, same CPU model, same runtime file, same compiler's hooks); once it
// has a few, a recording is seeded with their median (wire::CalibrationFile, cached sets),
// which the runtime uses only after a short check measures it still holds, or with the one
// of them the check confirms (a machine in a slower spell: alternates). A failed check
// measures anew, and the measurement joins the history like any other (a machine that
// changed pays one measurement, which the next checks confirm as an alternate); one
// recording in kMeasureOneIn, drawn at random, measures anyway, so the history follows the
// machine. `record --recalibrate` measures whatever the cache holds. Each key has a file; the 16 written last are kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/calibration_file.h"

namespace callprof::record {

// The median of these is seeded, and each of them beside it (wire::CalibrationFile's
// alternates): a check that misses the median but confirms one takes its costs.
inline constexpr size_t kCalibrationHistoryKept = wire::kCalibrationAlternates;
inline constexpr size_t kCalibrationHistoryNeeded = 3;
// A recording measures anyway with a chance of one in this. A count of the uses kept in the
// file did the same, and rewriting the file at each recording cost it 0.3 ms of CPU.
inline constexpr uint32_t kMeasureOneIn = 100;

struct CalibrationEntry {
  double ticks_per_ns = 0;
  wire::DumpHookCosts costs[wire::kHookSets] = {};
  uint64_t check[wire::kHookSets] = {};
};

struct CalibrationHistory {
  std::vector<CalibrationEntry> entries;  // oldest first, all measured for the cache's sets
};

// What the runtime did with the calibration in a recording, for the profile's facts: the
// hooks' costs measured, taken from the cache once checked, or taken from it unchecked (no
// process's hooks cost enough for a check to matter, runtime/calibration_check.h; or none
// made a hooked call).
enum class CalibrationOutcome { None, Measured, Cached, Unchecked };
// "", "measured", "cached", "unchecked"
const char* calibration_outcome_name(CalibrationOutcome o);

// The file to seed a recording with, for hook sets `sets` (a bit per wire::kHooks*): the
// median of each value over the history, and each entry of it as an alternate; none while
// the history is short.
std::optional<wire::CalibrationFile> seed_from(const CalibrationHistory& h, uint32_t sets);
// Whether this recording is the one in kMeasureOneIn that measures anyway (at random).
bool measurement_due();
// What the runtime left in a recording's directory says, for `sets`.
CalibrationOutcome outcome_of(const wire::CalibrationFile& f, uint32_t sets);
// How far the hooks' cost moved during the recording, for `sets`: the largest change of the
// check loop's cost between a measurement and a process's exit (+0.24: 24 % slower at the
// exit); nullopt when no measured set was checked again (runtime/process_calibration.h).
std::optional<double> change_at_exit(const wire::CalibrationFile& f, uint32_t sets);

// What the runtime did with the calibration in a recording, read from its directory.
struct CalibrationReport {
  CalibrationOutcome outcome = CalibrationOutcome::None;
  std::optional<double> change_at_exit;  // change_at_exit()
};
// The history after a recording whose calibration file is `f`: a measurement joins it (the
// oldest beyond kCalibrationHistoryKept leave), after a failed check too; true when it did
// (a checked use changes nothing).
bool learn(CalibrationHistory& h, const wire::CalibrationFile& f, uint32_t sets);

// The history as its JSON file, and back (nullopt for anything malformed or of another key).
std::string history_json(const CalibrationHistory& h, const std::string& key);
std::optional<CalibrationHistory> parse_history(const std::string& text, const std::string& key);

// The recording directory's calibration file (nullopt when absent or malformed).
std::optional<wire::CalibrationFile> read_calibration_file(const std::string& dir);

// What a recording changes in what the hooks cost. `--ordered-clock` gives them another path
// (a fence at every return: some 9 ns more a call), so its costs are a history of their own.
// Samples (`record -F`) interrupt the calibration's loops as they interrupt the program: a
// sampled recording takes the history's costs once its check passes, but what it measures
// (a check failed at a high rate) is the sampled machine's, and teaches the history nothing.
struct CalibrationConditions {
  bool ordered_clock = false;
  bool sampled = false;
};

class CalibrationCache {
 public:
  // The cache for recordings by the runtime at `runtime` of programs whose hooks are `sets`,
  // under `conditions`: under $XDG_CACHE_HOME/callprof (else ~/.cache/callprof). Without
  // either (or without the runtime file) it has no path: it seeds nothing and learns
  // nothing, and still tells what the runtime did.
  static CalibrationCache open(const std::string& runtime, uint32_t sets, CalibrationConditions conditions = {});
  // Leaves the cached calibration in the recording's directory when there is one to use and
  // no measurement is due (measurement_due()).
  void seed(const std::string& recording_dir, bool measure_due) const;
  // After the recording: what the runtime did, learnt, the file written only when a
  // measurement joined it (best effort: a cache that cannot be written is no error).
  CalibrationReport learn_from(const std::string& recording_dir) const;
  const std::string& path() const { return path_; }  // "" when there is no cache

 private:
  std::string path_, key_;
  uint32_t sets_ = 0;
  bool learns_ = true;
};

}  // namespace callprof::record

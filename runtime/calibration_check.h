// What the check of a cached calibration decides from its rounds (hook_calibration.cpp;
// docs/design.md, "Compensation"), apart from the loops that measure them.
#pragma once

#include <stdint.h>

#include "wire/calibration_file.h"

namespace callprof::rt {

// The check value of rounds' costs per call: the lowest of the rounds that measured a cost.
// A round whose plain loop took as long as its hooked one (cost 0) was interrupted in the
// plain loop and says nothing; taken as the lowest, it failed the check (once in 40
// recordings of zstd here) and cost a full measurement. 0 when no round measured a cost.
inline uint64_t check_value(const uint64_t* rounds, int n) {
  uint64_t lowest = 0;
  for (int i = 0; i < n; ++i)
    if (rounds[i] > 0 && (lowest == 0 || rounds[i] < lowest)) lowest = rounds[i];
  return lowest;
}

// Whether a check value measured now confirms the cached one.
inline bool check_confirms(uint64_t now, uint64_t cached) {
  const double d = double(now) - double(cached);
  return now > 0 && cached > 0 && (d < 0 ? -d : d) <= double(cached) * wire::kCalibrationCheckTolerance;
}

// Which of `n` cached check values a check value measured now confirms, the closest of them
// (the cache's single measurements, wire::CalibrationFile's alternates); -1 for none.
inline int confirmed_alternate(uint64_t now, const uint64_t* cached, int n) {
  int best = -1;
  uint64_t best_distance = 0;
  for (int i = 0; i < n; ++i) {
    if (!check_confirms(now, cached[i])) continue;
    const uint64_t distance = now > cached[i] ? now - cached[i] : cached[i] - now;
    if (best < 0 || distance < best_distance) {
      best = i;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace callprof::rt

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

// Cached costs are checked (at the process's exit) only where they matter: when the hooks'
// estimated cost, hooked calls times a call's, reaches this share of the CPU time the
// process used. Below it even a check that would fail by half (a host's slow spell: the
// hooks cost up to 72 % more within one recording here) moves less than 0.5 % of the time
// between callers and callees, and the check (0.2-0.4 ms, a full measurement 10-14 ms when
// it fails) is most of what callprof costs a short program besides its own start.
inline constexpr double kCheckedHooksShare = 0.01;

// How many hooked calls of `cost` (1/kHookCostScale ticks a call) make the hooks' cost reach
// kCheckedHooksShare of `cpu_ticks`; 0 (any number) when the cost is not known.
inline uint64_t calls_worth_a_check(uint64_t cpu_ticks, uint64_t cost) {
  if (cost == 0) return 0;
  const double calls = double(cpu_ticks) * kCheckedHooksShare * double(wire::kHookCostScale) / double(cost);
  return calls >= 1.8e19 ? UINT64_MAX : uint64_t(calls) + 1;
}

}  // namespace callprof::rt

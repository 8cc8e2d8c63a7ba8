// How much two runs of the same program differ when nothing changed (issue 29.6): the run's
// own change (a loaded machine stretches every function alike), the spread of the
// functions around it, the uncertainty of the hook-cost compensation per call, and the
// sampling error. A function's change counts only beyond what these explain.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace callprof {

// One function's value of the compared metric in each run (unscaled), and how far its log
// ratio may be off by its own measurement (NoiseModel::log_error): that much of a difference
// from the other functions is not spread.
struct ValuePair {
  double base = 0, next = 0;
  double known = 0;
};

// The run's typical change: the change the most of the runs' time agrees on. Each function
// is weighted by its share of both runs; a function agrees with a change when its own ratio
// is within the functions' spread (or its own measurement error) of it. Candidates: x1, the
// weighted median of the ratios, and each of the kPairFunctions heaviest functions' ratios;
// on a tie, x1, then the median: when the functions scatter too much to tell, nothing is
// scaled. So a few functions that really changed do not move it (they move the total), and
// three functions of which one changed and one is noisy do not make the noisy one the
// yardstick, as a median would.
struct TypicalChange {
  double ratio = 1;    // new / base
  double support = 1;  // the share of the weight that agrees with it
  // The functions' spread (Spreads::all over all of them; diff_analyses sets it to the
  // unchanged functions' once it knows them).
  double spread = 0;
  size_t functions = 0;  // with a value in both runs: those it is of
  // One function holds more than half of the weight: the typical change is then its own, and
  // scaling by it would hide that function's change.
  bool dominated = false;
  bool ambiguous = false;  // less than half of the weight agrees with it
};

// `min_spread`: the smallest spread assumed (kMinSpread by default).
TypicalChange typical_change(std::span<const ValuePair> functions, double min_spread);

// How far the functions' ratios spread, beyond what their own measurement explains:
// kSpreadWidth times the median, weighted by both functions' weights, of the difference of
// the log ratios of every pair of the kPairFunctions heaviest (about one standard deviation
// of a function's ratio; no center needed, so the function at the median does not count as a
// deviation of 0), as a relative band of at least `min_spread`. Over the functions whose
// `keep` is set (by index), and for each of them without it: a function that really changed
// must not widen the band it is judged by, or, among a few functions, it hides itself.
struct Spreads {
  double all = 0;
  std::vector<double> without;  // by index: for a function kept, the others' spread; else `all`
};
Spreads spreads_among(std::span<const ValuePair> functions, const std::vector<bool>& keep, double min_spread);

// The smallest spread assumed by default: on this project's 2-core VMs the same work took up
// to 15 % more or less CPU time from one run to the next (e2e diff_overloads.cpp, two
// functions: 23.5 against 27.0 ms; diff_runs.c: compress 7 % off with its callers exact),
// with few functions to show it. A quieter machine can assume less (--min-spread).
inline constexpr double kMinSpread = 0.2;
// How many typical differences between two functions' log ratios (about a standard
// deviation of one function's) the spread spans.
inline constexpr double kSpreadWidth = 3;
// The heaviest functions whose pairs the spread is measured on (their pairs are a quadratic
// number; the rest hold little of the runs).
inline constexpr size_t kPairFunctions = 32;
// The hooks' cost per call moves with the machine's load (8 % over one 2.4 s run, 20 to 28 ns
// within an hour here, docs/design.md "Compensation"): what compensation removed is known
// to this fraction of it.
inline constexpr double kHookCostUncertainty = 0.1;
// A function hooked in one run and folded in the other is compensated by two different
// constants (a hooked call's cost, a folded call's): on programs/diff_fold.c their results
// differed by ~6.6 ns per call, a quarter of the hooked cost. Such calls are known to this
// fraction of the hooked cost.
inline constexpr double kRefoldUncertainty = 0.3;
// Each context switch a function saw leaves its time uncertain: the CPU split at the switch,
// the caches the other task emptied. Functions of unchanged work differed by 0.2-0.35 ms
// around 2 switches and 0.5-0.9 ms around 50-90 on this VM (e2e diff_runs.c and the issue's
// reproduction): about 100 us per switch, growing as the root of their number.
inline constexpr double kSwitchSigmaNs = 100e3;

// A row's numbers for its noise: the metric (the new side scaled), the calls whose hook
// cost compensation removed from it, and the samples it was estimated from.
struct RowNumbers {
  double base = 0, next = 0;
  double spread = 0;  // relative: the other functions' spread around the typical change
  uint64_t hooked_base = 0, hooked_next = 0;
  uint64_t refolded_base = 0, refolded_next = 0;  // of those, of functions folded to match the other run
  uint64_t samples_base = 0, samples_next = 0;
  uint64_t switches_base = 0, switches_next = 0;
};

struct NoiseModel {
  double hook_ns_base = 0;    // uncertainty per hooked call, ns (0: not compensated)
  double hook_ns_next = 0;    // the same for the new run, before scaling
  double refold_ns_base = 0;  // the same for a refolded call (kRefoldUncertainty), ns
  double refold_ns_next = 0;
  double scale = 1;            // applied to the new side
  double switch_sigma_ns = 0;  // per context switch (kSwitchSigmaNs for times, 0 otherwise)
  bool sampled_base = false;   // values estimated from samples: their counting error counts
  bool sampled_next = false;
  double min_change = 0;        // absolute: smaller changes are noise whatever the row
  double min_change_share = 0;  // the same as a share of the larger run's total (the option)
  // The change a row may show without any real change: its spread x value + hook uncertainty x
  // hooked calls (refolded ones at their own) + 3 sigma of the sample counts and of the
  // context switches, and at least min_change.
  double threshold(const RowNumbers& r) const;
  // The same measurement terms (hooks, samples, switches; no spread, no floor) as an error of
  // the log ratio new/base, for unscaled numbers.
  double log_error(const RowNumbers& r) const;

 private:
  // One side's measurement error: hook uncertainty x hooked calls, 3 sigma of its samples
  // and switches.
  double side_error(double value, uint64_t hooked, uint64_t refolded, uint64_t samples, uint64_t switches,
                    bool base) const;
};

// The hooks' cost uncertainty per call for a run whose calibrated cost per call is `cost`
// and the other run's `other`: kHookCostUncertainty of it, or the difference between the
// two calibrations when larger (the load moved the hooks' cost between the runs).
double hook_uncertainty_ns(double cost, double other);

}  // namespace callprof

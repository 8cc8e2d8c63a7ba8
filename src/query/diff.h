// Two analysed profiles compared (SPEC §3 diff, issue 29.6): by function and by call path,
// on one metric, the new run scaled by the run's typical change, each change judged against
// the run's own noise (query/diff_noise.h), at one fold level on both sides and with the
// functions matched as report tells them apart (query/diff_match.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/diff_match.h"
#include "query/diff_noise.h"
#include "query/query.h"
#include "util/result.h"

namespace callprof {

enum class DiffMetric : uint8_t {
  Cpu,      // self on-CPU time
  Self,     // self wall time
  Total,    // total wall time (the function and what it called)
  Calls,    // calls: exact counts, never scaled
  Samples,  // self samples (sampled profiles)
};
std::optional<DiffMetric> parse_diff_metric(std::string_view name);
std::string_view diff_metric_name(DiffMetric m);

enum class DiffScale : uint8_t {
  Typical,  // the new run divided by its typical function's change (default)
  Total,    // by the change of its total (--normalize)
  None,     // as recorded
};
std::optional<DiffScale> parse_diff_scale(std::string_view name);
std::string_view diff_scale_name(DiffScale s);

struct DiffOptions {
  std::optional<DiffMetric> metric;  // nullopt: default_diff_metric()
  DiffScale scale = DiffScale::Typical;
  double min_change = 0.005;       // of the larger run's total (new scaled): a smaller change is noise
  double min_spread = kMinSpread;  // the smallest spread between two runs' functions assumed
  bool all = false;                // also the rows whose change is within noise (else only counted)
  size_t limit = 20;               // rows per table, 0: all
};

// One side of a function or path. The new side's times and samples are scaled; calls never.
struct DiffSide {
  bool present = false;
  uint64_t calls = 0;
  uint64_t self_ns = 0, total_ns = 0, cpu_ns = 0;
  uint64_t samples = 0, total_samples = 0;
  // Calls whose hook cost compensation removed from the self (own, callees', excluded) and
  // total (the subtree's) values: what the compensation's uncertainty scales with.
  uint64_t hooked_self = 0, hooked_total = 0;
  // Of those, hooked calls of functions folded here because the other run folded them: their
  // cost was compensated as a hooked call's here and as a folded call's there.
  uint64_t refolded_self = 0, refolded_total = 0;
  uint64_t switches = 0, total_switches = 0;  // context switches while it ran (self; total: below it too)
};

struct DiffRow {
  std::vector<uint32_t> keys;        // FunctionKeys: one (a function) or the frames of a path
  std::vector<std::string> names;    // full names, as keys
  std::vector<std::string> display;  // display names in the chosen style (unique)
  DiffSide base, next;
  bool folded = false;                    // compared folded into its callers: its time is theirs on both sides
  double base_value = 0, next_value = 0;  // the metric (new side scaled)
  double noise = 0;                       // a change within +-noise is not reported as one
  double delta() const { return next_value - base_value; }
  bool changed() const;
  int64_t self_delta() const { return int64_t(next.self_ns) - int64_t(base.self_ns); }
  int64_t total_delta() const { return int64_t(next.total_ns) - int64_t(base.total_ns); }
  int64_t calls_delta() const { return int64_t(next.calls) - int64_t(base.calls); }
};

// One run's totals, unscaled, for the header.
struct DiffRun {
  uint64_t total_ns = 0;      // the grand total (wall)
  uint64_t cpu_ns = 0;        // on-CPU
  uint64_t waiting_ns = 0;    // off-CPU by the program's own choice: not preempted
  uint64_t preempted_ns = 0;  // off-CPU because the machine took the CPU away
  uint64_t metric_total = 0;  // the compared metric summed over the tree
  bool cpu_measured = false, calls_known = false, sampled = false;
  double hook_cost_ns = 0;  // calibrated hook cost per call compensated (0: none)
};

struct Diff {
  DiffMetric metric = DiffMetric::Self;
  bool metric_by_default = false;
  DiffScale scale_method = DiffScale::Typical;
  double scale = 1.0;  // applied to every time and sample count of the new side
  TypicalChange typical;
  NoiseModel noise;
  DiffRun base, next;
  FoldLevel fold;                                             // fold.functions' keys name rows of `names`
  std::vector<std::string> key_display;                       // display name by key (for fold.functions)
  std::vector<DiffRow> functions, paths;                      // the rows shown, largest change first
  size_t functions_changed = 0, paths_changed = 0;            // beyond noise, shown or not
  size_t functions_within_noise = 0, paths_within_noise = 0;  // within noise, left out (not --all)
};

// Cpu when both runs measured it and spent more of their time on a CPU than waiting by
// choice (load adds off-CPU time, preempted, and leaves CPU time alone); otherwise Self.
DiffMetric default_diff_metric(const Analysis& base, const Analysis& next);

// The diff; an error (one line) when the metric is not in both profiles.
Result<Diff> diff_analyses(const Analysis& base, const Analysis& next, const DiffOptions& options);

}  // namespace callprof

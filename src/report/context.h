// What every view works from: the analysis (the selected, analysed tree and its
// aggregates), the view options and the row filter. Views only format and order these.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/transform/sampled_time.h"
#include "query/query.h"
#include "report/report.h"
#include "util/pattern.h"
#include "util/result.h"

namespace callprof {

class ReportContext {
 public:
  // Validates the filter; does not look at the view or sort column.
  static Result<ReportContext> make(const Analysis& analysis, const ReportOptions& options);

  const Analysis& analysis() const { return *analysis_; }
  const Profile& profile() const { return analysis_->profile(); }
  const ReportOptions& options() const { return *options_; }
  const CallTree& tree() const { return analysis_->tree(); }
  const NodeQuantities& nodes() const { return analysis_->nodes(); }
  const std::vector<uint32_t>& levels() const { return analysis_->levels(); }
  const std::vector<FunctionRow>& functions() const { return analysis_->functions(); }
  const std::vector<EdgeRow>& edges() const { return analysis_->edges(); }
  const TreeStats& stats() const { return analysis_->stats(); }
  uint64_t grand_total_ns() const { return analysis_->grand_total_ns(); }
  bool cpu_measured() const { return analysis_->cpu_measured(); }
  bool compensated() const { return analysis_->compensated(); }
  const CompensationStats& compensation() const { return analysis_->compensation(); }
  // Samples are present (their columns and keys are shown).
  bool has_samples() const { return stats().has_samples; }
  // The views read it as a sampled profile: samples first, no calls. Not exact mode with
  // samples inside it: its calls and times are measured, its samples a column beside them.
  bool sampled() const { return stats().has_samples && !samples_inside_exact(profile()); }
  // Show the module column: the tree's functions come from more than one module.
  bool show_module() const { return analysis_->module_count() > 1; }

  std::string_view name(FunctionId f) const { return analysis_->name(f); }
  std::string path_text(std::span<const FunctionId> path) const { return analysis_->path_text(path); }
  std::string_view module(FunctionId f) const { return analysis_->module(f); }
  const FunctionRow* row(FunctionId f) const { return analysis_->row(f); }
  // Does the function's (full) name match the filter? (always true without a filter)
  bool matches(FunctionId f) const;
  // Does arbitrary text (a thread or system-call name) match the filter?
  bool matches_text(std::string_view s) const;
  bool filtered() const { return filter_.has_value(); }

 private:
  ReportContext(const Analysis& a, const ReportOptions& o) : analysis_(&a), options_(&o) {}

  const Analysis* analysis_;
  const ReportOptions* options_;
  std::optional<Pattern> filter_;
  std::vector<bool> match_;  // by FunctionId, table ids
};

}  // namespace callprof

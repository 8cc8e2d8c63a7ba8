// What every view works from: the selected threads' merged tree and its aggregates,
// computed once, plus name lookups and the filter. Views only format and order these.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/aggregate.h"
#include "graph/tree_stats.h"
#include "model/profile.h"
#include "report/report.h"
#include "util/result.h"

namespace callprof {

class ReportContext {
 public:
  // Validates the thread and the filter; does not look at the view or sort column.
  static Result<ReportContext> make(const Profile& profile, const ReportOptions& options);

  const Profile& profile() const { return *profile_; }
  const ReportOptions& options() const { return *options_; }
  const CallTree& tree() const { return tree_; }
  const std::vector<FunctionRow>& functions() const { return functions_; }
  const std::vector<EdgeRow>& edges() const { return edges_; }
  const TreeStats& stats() const { return stats_; }
  uint64_t grand_total_ns() const { return grand_total_ns_; }
  size_t shown_threads() const { return shown_threads_; }

  // Raw (unescaped) names: "<spontaneous>" for kNoFunction, a placeholder for ids
  // outside the function table.
  std::string name(FunctionId f) const;
  // Basename of the function's module, "" when unknown.
  std::string module(FunctionId f) const;
  // Does the function's name match the filter? (always true without a filter)
  bool matches(FunctionId f) const;
  // Does arbitrary text (a thread name) match the filter? (always true without one)
  bool matches_text(std::string_view s) const;
  bool filtered() const { return !options_->filter.empty(); }
  // The function's aggregate row, nullptr when it is not in the tree.
  const FunctionRow* row(FunctionId f) const;

 private:
  ReportContext(const Profile& p, const ReportOptions& o) : profile_(&p), options_(&o) {}

  const Profile* profile_;
  const ReportOptions* options_;
  CallTree tree_;
  std::vector<FunctionRow> functions_;
  std::vector<EdgeRow> edges_;
  TreeStats stats_;
  uint64_t grand_total_ns_ = 0;
  size_t shown_threads_ = 0;
  std::vector<bool> match_;                             // by FunctionId, table ids
  std::unordered_map<FunctionId, bool> match_unknown_;  // ids outside the table
  std::optional<std::regex> filter_;
};

}  // namespace callprof

// What every view works from: the selected threads' merged tree and its aggregates,
// computed once, plus name lookups and the filter. Views only format and order these.
#pragma once

#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/aggregate.h"
#include "graph/node_quantities.h"
#include "graph/tree_stats.h"
#include "model/profile.h"
#include "report/report.h"
#include "util/result.h"

namespace callprof {

// The threads (indices into profile.threads) a report covers: all, or the one selected
// with --thread; with --graft or --merge-threads=start also every thread it created,
// directly or not.
std::vector<size_t> report_threads(const Profile& profile, const ReportOptions& options);

class ReportContext {
 public:
  // Validates the thread and the filter; does not look at the view or sort column.
  // `tree`, when given, is the tree to report (built by the caller, e.g. by start routine).
  static Result<ReportContext> make(const Profile& profile, const ReportOptions& options,
                                    std::optional<CallTree> tree = std::nullopt);

  const Profile& profile() const { return *profile_; }
  const ReportOptions& options() const { return *options_; }
  // The selected thread's tree, or the selected threads merged.
  const CallTree& tree() const { return merged_ ? *merged_ : *single_; }
  const NodeQuantities& nodes() const { return nodes_; }
  const std::vector<FunctionRow>& functions() const { return functions_; }
  const std::vector<EdgeRow>& edges() const { return edges_; }
  const TreeStats& stats() const { return stats_; }
  uint64_t grand_total_ns() const { return grand_total_ns_; }
  // CPU/off-CPU split measured: some thread measured it, or the tree has such times.
  bool cpu_measured() const { return cpu_measured_; }
  // Times were compensated for the hook overhead (meta.compensated).
  bool compensated() const;

  // Raw (unescaped) names: "<spontaneous>" for kNoFunction, "<function #N>" for ids
  // outside the function table. Valid as long as the context and profile are.
  std::string_view name(FunctionId f) const;
  // A call path as "a > b > c".
  std::string path_text(std::span<const FunctionId> path) const;
  // Basename of the function's module, "" when unknown.
  std::string_view module(FunctionId f) const;
  // Does the function's name match the filter? (always true without a filter)
  bool matches(FunctionId f) const;
  // Does arbitrary text (a thread name) match the filter? (always true without one)
  bool matches_text(std::string_view s) const;
  bool filtered() const { return !options_->filter.empty(); }
  // The function's aggregate row, nullptr when it is not in the tree.
  const FunctionRow* row(FunctionId f) const;

 private:
  ReportContext(const Profile& p, const ReportOptions& o) : profile_(&p), options_(&o) {}
  void select_tree();
  void name_unknown_functions();
  Status compile_filter();

  const Profile* profile_;
  const ReportOptions* options_;
  const CallTree* single_ = nullptr;  // the one selected thread's tree: no copy needed
  std::optional<CallTree> merged_;    // several threads merged
  NodeQuantities nodes_;
  std::vector<FunctionRow> functions_;
  std::vector<EdgeRow> edges_;
  TreeStats stats_;
  uint64_t grand_total_ns_ = 0;
  bool cpu_measured_ = false;
  std::unordered_map<FunctionId, std::string> unknown_names_;  // ids outside the table
  std::vector<bool> match_;                                    // by FunctionId, table ids
  std::unordered_map<FunctionId, bool> match_unknown_;
  std::optional<std::regex> filter_;
};

}  // namespace callprof

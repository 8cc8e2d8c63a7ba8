// The analysis layer every output starts from: typed selection options in, one analysed
// tree out (threads selected, hook overhead compensated, threads merged or grafted,
// functions hidden, focus applied) with the aggregates and display names views need.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/aggregate.h"
#include "graph/folded.h"
#include "graph/node_quantities.h"
#include "graph/threads.h"
#include "graph/tree_stats.h"
#include "model/profile.h"
#include "model/transform/compensate.h"
#include "model/transform/node_image.h"
#include "query/names.h"
#include "util/pattern.h"
#include "util/result.h"

namespace callprof {

// How the selected threads become one tree.
enum class ThreadMerge {
  Paths,         // equal call paths merged
  Graft,         // each thread under the call path that created it
  StartRoutine,  // one top-level node per thread start routine
};

// "paths", "graft", "start" (the JSON and CLI names); nullopt for an unknown name.
std::optional<ThreadMerge> parse_thread_merge(std::string_view name);
std::string_view thread_merge_name(ThreadMerge merge);
// "short", "templates", "full".
std::string_view name_style_name(NameStyle style);

struct QueryOptions {
  std::optional<uint32_t> pid;  // only this process (all its exec images)
  std::optional<uint32_t> tid;  // only this thread (with Graft/StartRoutine: and those it created)
  ThreadMerge merge = ThreadMerge::Paths;
  bool raw = false;  // times as measured: no hook-overhead compensation
  // --time sampled: every node's self time is its samples' CPU time (model/transform/
  // sampled_time.h); no compensation then.
  bool sampled_time = false;
  std::string focus;  // regex: re-root at the matching functions ("" = none)
  std::string hide;   // regex: fold the matching functions into their callers
  NameStyle names = NameStyle::Short;
  // false: once the analysed tree is a copy (threads merged, hide or focus applied), the
  // threads' own trees are released, so the memory serves the views (for a caller that
  // reads only tree(); profile().threads[i].tree is then empty).
  bool keep_thread_trees = true;
  // Each selected thread's own function rows (Analysis::thread_rows), taken before the
  // threads' trees are released: JSON's per-thread and per-process breakdowns.
  bool thread_rows = false;
};

// Whether the options select the thread when threads merge by path: its process (--pid)
// and, with --thread, the thread itself.
bool selects(const QueryOptions& options, const Thread& thread);

// What the analysis reads from each thread's own tree before the tree may go.
struct ThreadSummaries {
  FoldedTally folded;                 // functions the runtime folded, over every thread
  std::vector<ThreadTotals> totals;   // per thread of the profile, in order
  std::vector<size_t> folded_counts;  // per thread: functions the runtime folded in it
  void add(const CallTree& tree) {
    totals.push_back(thread_totals(tree));
    folded_counts.push_back(folded.add(tree));
  }
};

class ThreadIntake;

class Analysis {
 public:
  // Takes the profile (it is compensated and may gain synthetic functions); errors are one
  // line: a pid or thread not in the profile, an invalid regex.
  static Result<Analysis> run(Profile profile, const QueryOptions& options);
  // The same for a profile whose threads went through `intake` as it was read
  // (query/thread_intake.h): their trees are already compensated, summarised and merged.
  static Result<Analysis> run_intake(Profile profile, ThreadIntake intake);

  const Profile& profile() const { return *profile_; }
  const QueryOptions& options() const { return options_; }
  // Indices into profile().threads of the selected threads.
  const std::vector<size_t>& threads() const { return threads_; }
  // The analysed tree: the selected threads merged (or grafted), hidden functions folded,
  // focus applied. Percentages are relative to grand_total_ns(), the tree's total.
  const CallTree& tree() const { return tree_ ? *tree_ : *single_; }
  // The tree's cum and recursion levels. Cum is summed on first use: the per-function views
  // (flat, callers, threads, modules, summary) never need it, and on a million-node tree it
  // is a table as large as the tree's own metrics.
  const NodeQuantities& nodes() const;
  // The recursion levels alone (always computed; nodes() also sums the cum table).
  const std::vector<uint32_t>& levels() const { return nodes_.level; }
  const std::vector<FunctionRow>& functions() const { return functions_; }
  // Caller-callee rows, also made on first use: only callers, summary, JSON and the
  // callgrind export read them, and they hold two metric vectors per edge.
  const std::vector<EdgeRow>& edges() const;
  const TreeStats& stats() const { return stats_; }
  uint64_t grand_total_ns() const { return grand_total_ns_; }
  // An additive metric summed over the whole tree (its top-level nodes' cum).
  uint64_t total(Metric m) const;
  bool cpu_measured() const { return cpu_measured_; }
  bool compensated() const { return profile_->meta.compensated; }
  // What compensation did here (nothing when raw or already compensated in the file).
  const CompensationStats& compensation() const { return compensation_; }
  // Compensation's work on the selected threads (threads()) alone.
  const CompensationStats& selected_compensation() const { return selected_compensation_; }
  bool focused() const { return !options_.focus.empty(); }
  // Functions the runtime folded (auto-fold), over every thread of the profile.
  const std::vector<FoldedFunction>& folded() const { return folded_; }
  // Per thread of the profile (profile().threads order), from its own tree before any
  // release: its totals, and how many functions the runtime folded in it.
  const std::vector<ThreadTotals>& thread_totals() const { return summaries_.totals; }
  const std::vector<size_t>& thread_folded_counts() const { return summaries_.folded_counts; }
  // The function rows of the k-th selected thread's own tree (threads()[k]): those taken
  // with QueryOptions::thread_rows, else made from the tree the analysis kept.
  std::vector<FunctionRow> thread_rows(size_t k) const;
  // Distinct modules of the functions in the tree (views drop the module column at 1).
  size_t module_count() const { return module_count_; }

  // The display name in the chosen style (unique where full names differ);
  // "<spontaneous>" for kNoFunction, "<function #N>" for ids outside the table.
  std::string_view name(FunctionId f) const;
  // The Short style's name whatever the chosen style (JSON's short_name).
  std::string_view short_name(FunctionId f) const;
  // The name as recorded (demangled, with parameters).
  std::string_view full_name(FunctionId f) const;
  FunctionKind kind(FunctionId f) const { return kind_of(*profile_, f); }
  // Basename of the function's module, "" when unknown.
  std::string_view module(FunctionId f) const;
  // A call path as "a > b > c" in display names.
  std::string path_text(std::span<const FunctionId> path) const;
  // The function's aggregate row, nullptr when it is not in the tree.
  const FunctionRow* row(FunctionId f) const;
  // One selected thread's own tree (profile().threads[index]) with hide and focus applied:
  // for outputs that keep threads apart (pprof labels, speedscope profiles). `image`, when
  // given, gets where the own tree's nodes went (left empty when nothing was rebuilt).
  CallTree thread_tree(size_t index, NodeImage* image = nullptr) const;
  // Whether --hide or --focus rebuild the trees.
  bool transforms_trees() const { return !hidden_.empty() || !focused_.empty(); }
  // --hide and --focus as compiled for this analysis, by FunctionId.
  bool hides(FunctionId f) const { return f < hidden_.size() && hidden_[f]; }
  bool focuses(FunctionId f) const { return f < focused_.size() && focused_[f]; }
  bool has_focus() const { return !focused_.empty(); }

 private:
  Analysis() = default;
  static Result<Analysis> start(Profile profile, const QueryOptions& options);
  Status select_threads();
  void build_tree();
  void take(ThreadIntake&& intake);
  void finish();
  Status compile_patterns();
  CallTree transformed(const CallTree& tree, NodeImage* image = nullptr) const;
  void summarise_threads();
  void aggregate();

  std::unique_ptr<Profile> profile_;  // stable address: views keep pointers into it
  CompensationStats compensation_;
  CompensationStats selected_compensation_;
  QueryOptions options_;
  std::vector<size_t> threads_;
  const CallTree* single_ = nullptr;  // one selected thread, unchanged: no copy
  std::optional<CallTree> tree_;
  mutable NodeQuantities nodes_;  // level always, cum from the first nodes()
  std::unique_ptr<std::once_flag> cum_once_ = std::make_unique<std::once_flag>();
  std::vector<FunctionRow> functions_;
  mutable std::vector<EdgeRow> edges_;
  std::unique_ptr<std::once_flag> edges_once_ = std::make_unique<std::once_flag>();
  TreeStats stats_;
  ThreadSummaries summaries_;
  std::vector<FoldedFunction> folded_;                 // summaries_.folded, sorted
  std::vector<std::vector<FunctionRow>> thread_rows_;  // by selected thread, when asked for
  uint64_t grand_total_ns_ = 0;
  bool cpu_measured_ = false;
  size_t module_count_ = 0;
  std::vector<std::string> names_;        // display names by FunctionId
  std::vector<std::string> short_names_;  // when the chosen style is not Short
  std::unordered_map<FunctionId, std::string> unknown_names_;
  std::vector<bool> hidden_, focused_;  // by FunctionId; empty without --hide / --focus
};

// The pattern's matches over the function table (by full name), one flag per FunctionId.
std::vector<bool> matching_functions(const Profile& profile, const Pattern& pattern);

}  // namespace callprof

// Building an Analysis: select, compensate, merge or graft, hide, focus, aggregate, name.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <unordered_set>

#include "graph/threads.h"
#include "model/transform/compensate.h"
#include "model/transform/focus.h"
#include "model/transform/graft.h"
#include "model/transform/hide.h"
#include "model/transform/merge.h"
#include "model/transform/sampled_time.h"
#include "query/query.h"
#include "query/thread_intake.h"
#include "util/parallel.h"
#include "util/strings.h"

namespace callprof {
namespace {

std::string known_ids(const std::vector<uint32_t>& ids) {
  std::string known;
  for (size_t i = 0; i < ids.size() && i < 10; ++i) known += fmt::format("{}{}", i ? ", " : "", ids[i]);
  if (ids.size() > 10) known += ", ...";
  return known.empty() ? "none" : known;
}

// The ids the profile's threads have in `field`, each once, in profile order: for the
// error's list (a profile of 20,000 processes made a search per thread quadratic).
std::vector<uint32_t> distinct_ids(const Profile& p, uint32_t Thread::*field) {
  std::vector<uint32_t> ids;
  std::unordered_set<uint32_t> seen;
  for (const Thread& t : p.threads)
    if (seen.insert(t.*field).second) ids.push_back(t.*field);
  return ids;
}

bool has_id(const Profile& p, uint32_t Thread::*field, uint32_t id) {
  return std::any_of(p.threads.begin(), p.threads.end(), [&](const Thread& t) { return t.*field == id; });
}

Status check_selection(const Profile& p, const QueryOptions& o) {
  if (o.pid && !has_id(p, &Thread::pid, *o.pid))
    return make_error(fmt::format("process {} is not in the profile (processes: {})", *o.pid,
                                  known_ids(distinct_ids(p, &Thread::pid))));
  if (o.tid && !has_id(p, &Thread::tid, *o.tid))
    return make_error(
        fmt::format("thread {} is not in the profile (threads: {})", *o.tid, known_ids(distinct_ids(p, &Thread::tid))));
  return Ok{};
}

bool offcpu_measured(const Profile& profile) {
  return std::any_of(profile.threads.begin(), profile.threads.end(),
                     [](const Thread& t) { return t.offcpu == Thread::OffCpu::Measured; });
}

// The selected thread and, when threads are grafted or grouped, every thread it created,
// directly or not (its subtree of the creation forest, in pre-order).
std::vector<size_t> thread_and_descendants(const Profile& profile, const std::vector<size_t>& candidates,
                                           uint32_t tid) {
  std::vector<size_t> out;
  const std::vector<ForestEntry> forest = thread_forest(profile, candidates);
  for (size_t i = 0; i < forest.size(); ++i) {
    if (profile.threads[forest[i].index].tid != tid) continue;
    out.push_back(forest[i].index);
    for (size_t j = i + 1; j < forest.size() && forest[j].depth > forest[i].depth; ++j) out.push_back(forest[j].index);
  }
  return out;
}

}  // namespace

std::vector<bool> matching_functions(const Profile& profile, const Pattern& pattern) {
  std::vector<bool> match(profile.functions.size());
  for (size_t f = 0; f < profile.functions.size(); ++f) match[f] = pattern.search(profile.functions[f].name);
  return match;
}

bool selects(const QueryOptions& options, const Thread& thread) {
  return (!options.pid || thread.pid == *options.pid) && (!options.tid || thread.tid == *options.tid);
}

// What run and run_intake share before the threads' trees are read: the profile taken,
// the selection checked and made, the patterns compiled.
Result<Analysis> Analysis::start(Profile profile, const QueryOptions& options) {
  if (Status s = check_selection(profile, options); !s) return s.error();
  if (options.sampled_time)
    if (auto period = sample_period_ns(profile); !period) return period.error();
  Analysis a;
  a.profile_ = std::make_unique<Profile>(std::move(profile));
  a.options_ = options;
  if (Status s = a.select_threads(); !s) return s.error();
  if (Status s = a.compile_patterns(); !s) return s.error();
  return a;
}

Result<Analysis> Analysis::run(Profile profile, const QueryOptions& options) {
  Result<Analysis> a = start(std::move(profile), options);
  if (!a) return a;
  if (options.sampled_time) {
    const double period = sample_period_ns(*a->profile_).value();
    for (Thread& t : a->profile_->threads) use_sampled_time(t.tree, period);
  } else if (!options.raw) {
    std::vector<CompensationStats> per_thread;
    a->compensation_ = compensate(*a->profile_, &per_thread);
    for (size_t t : a->threads_) a->selected_compensation_.add(per_thread[t]);
  }
  a->summarise_threads();
  a->build_tree();
  a->finish();
  return a;
}

Result<Analysis> Analysis::run_intake(Profile profile, ThreadIntake intake) {
  if (!intake.began_) return run(std::move(profile), intake.options_);  // read without it
  Result<Analysis> a = start(std::move(profile), intake.options_);
  if (!a) return a;
  a->take(std::move(intake));
  a->finish();
  return a;
}

// What the intake did thread by thread stands for compensate(), summarise_threads() and
// build_tree().
void Analysis::take(ThreadIntake&& intake) {
  compensation_ = intake.compensation_;
  selected_compensation_ = intake.selected_compensation_;
  if (intake.compensated_) profile_->meta.compensated = true;
  summaries_ = std::move(intake.summaries_);
  folded_ = summaries_.folded.sorted();
  add_hook_removals(folded_, profile_->processes);
  thread_rows_ = std::move(intake.rows_);
  tree_ = intake.tree_ ? std::move(*intake.tree_) : CallTree();
  tree_->drop_index();  // only walked from here on
}

// Hide and focus, the threads' own trees released when asked, and the aggregates.
void Analysis::finish() {
  if (transforms_trees()) {
    tree_ = transformed(tree());
    single_ = nullptr;
  }
  if (!options_.keep_thread_trees && tree_)
    for (Thread& t : profile_->threads) t.tree = CallTree();
  aggregate();
}

// What is read from the threads' own trees, taken while they are all there (the merge may
// take the first one's tree, and views that read only the analysed tree release them).
void Analysis::summarise_threads() {
  const Profile& p = *profile_;
  for (const Thread& t : p.threads) summaries_.add(t.tree);
  folded_ = summaries_.folded.sorted();
  add_hook_removals(folded_, profile_->processes);
  if (!options_.thread_rows) return;
  thread_rows_.resize(threads_.size());
  parallel_for(threads_.size(), [&](size_t k) {
    std::vector<FunctionRow> rows =
        function_rows(p.threads[threads_[k]].tree);  // made here, not beside the other core's
    thread_rows_[k] = std::move(rows);
  });
}

Status Analysis::select_threads() {
  const Profile& p = *profile_;
  std::vector<size_t> in_process;
  for (size_t i = 0; i < p.threads.size(); ++i)
    if (!options_.pid || p.threads[i].pid == *options_.pid) in_process.push_back(i);
  if (!options_.tid) {
    threads_ = std::move(in_process);
  } else if (options_.merge == ThreadMerge::Paths) {
    for (size_t i : in_process)
      if (selects(options_, p.threads[i])) threads_.push_back(i);
  } else {
    threads_ = thread_and_descendants(p, in_process, *options_.tid);
  }
  if (threads_.empty() && options_.tid && options_.pid)
    return make_error(fmt::format("thread {} is not in process {}", *options_.tid, *options_.pid));
  return Ok{};
}

void Analysis::build_tree() {
  Profile& p = *profile_;
  switch (options_.merge) {
    case ThreadMerge::Graft:
      tree_ = grafted_tree(p, threads_);
      return;
    case ThreadMerge::StartRoutine:
      tree_ = merged_by_start_routine(p, threads_);
      return;
    case ThreadMerge::Paths:
      break;
  }
  if (threads_.size() == 1) {
    single_ = &p.threads[threads_[0]].tree;
    return;
  }
  tree_.emplace();
  size_t nodes = 0;
  for (size_t i : threads_) nodes += p.threads[i].tree.size();
  size_t next = 0;
  // When the threads' own trees need not be kept, the first becomes the merge's base
  // instead of being copied into it.
  if (!options_.keep_thread_trees && !threads_.empty()) *tree_ = std::move(p.threads[threads_[next++]].tree);
  tree_->reserve(nodes);  // an upper bound: equal paths merge
  for (; next < threads_.size(); ++next) merge_into(*tree_, p.threads[threads_[next]].tree);
  tree_->drop_index();  // only walked from here on; its memory serves the views
}

Status Analysis::compile_patterns() {
  for (auto [regex, option, match] :
       {std::tuple{&options_.hide, "--hide", &hidden_}, std::tuple{&options_.focus, "--focus", &focused_}}) {
    if (regex->empty()) continue;
    auto pattern = Pattern::compile(*regex, option);
    if (!pattern) return pattern.error();
    *match = matching_functions(*profile_, *pattern);
  }
  return Ok{};
}

// Hide first, then focus: a hidden function cannot be a focus root.
CallTree Analysis::transformed(const CallTree& tree, NodeImage* image) const {
  auto in = [](const std::vector<bool>& set) { return [&set](FunctionId f) { return f < set.size() && set[f]; }; };
  if (hidden_.empty()) return focused_tree(tree, in(focused_), image);
  CallTree hidden = hidden_tree(tree, in(hidden_), image);
  if (focused_.empty()) return hidden;
  NodeImage second;
  CallTree focused = focused_tree(hidden, in(focused_), image ? &second : nullptr);
  if (image) *image = composed(*image, second);
  return focused;
}

CallTree Analysis::thread_tree(size_t index, NodeImage* image) const {
  const CallTree& own = profile_->threads[index].tree;
  return transforms_trees() ? transformed(own, image) : own;
}

void Analysis::aggregate() {
  const CallTree& t = tree();
  nodes_.level = recursion_levels(t);
  // Independent passes over a tree of up to millions of nodes: two cores halve the wait.
  parallel_invoke([&] { functions_ = function_rows(t, nodes_.level); }, [&] { stats_ = tree_stats(t, nodes_.level); });
  grand_total_ns_ = callprof::grand_total_ns(t);  // the top-level nodes' cum: every node's base
  cpu_measured_ = offcpu_measured(*profile_) || stats_.cpu_measured();
  std::unordered_set<ModuleId> modules;
  for (const FunctionRow& r : functions_)
    if (r.function < profile_->functions.size() && profile_->functions[r.function].module != kNoModule)
      modules.insert(profile_->functions[r.function].module);
  module_count_ = modules.size();
  std::vector<NameSource> sources;
  sources.reserve(profile_->functions.size());
  for (const Function& f : profile_->functions) sources.push_back(NameSource{f.name, f.linkage_name});
  names_ = display_names(sources, options_.names);
  if (options_.names != NameStyle::Short) short_names_ = display_names(sources, NameStyle::Short);
  auto add_unknown = [&](FunctionId f) {
    if (f >= profile_->functions.size() && f != kNoFunction)
      unknown_names_.try_emplace(f, fmt::format("<function #{}>", f));
  };
  for (const FunctionRow& r : functions_) add_unknown(r.function);
  for (const Thread& th : profile_->threads) {
    add_unknown(th.start_routine);
    for (FunctionId f : th.creator_path) add_unknown(f);
  }
}

std::vector<FunctionRow> Analysis::thread_rows(size_t k) const {
  if (options_.thread_rows) return k < thread_rows_.size() ? thread_rows_[k] : std::vector<FunctionRow>();
  return k < threads_.size() ? function_rows(profile_->threads[threads_[k]].tree) : std::vector<FunctionRow>();
}

const NodeQuantities& Analysis::nodes() const {
  std::call_once(*cum_once_, [this] { nodes_.cum = cumulative(tree()); });
  return nodes_;
}

const std::vector<EdgeRow>& Analysis::edges() const {
  std::call_once(*edges_once_, [this] { edges_ = edge_rows(tree(), nodes_.level); });
  return edges_;
}

uint64_t Analysis::total(Metric m) const {
  // An additive metric's top-level cum is every node's base; others need the cum table.
  if (info(m).merge == MergeKind::Sum) return tree().base_table().sum(m, 1);
  uint64_t sum = 0;
  for (NodeId k = tree().node(kRootNode).first_child; k != kNoNode; k = tree().node(k).next_sibling)
    sum += nodes().cum[k][m];
  return sum;
}

std::string_view Analysis::name(FunctionId f) const {
  if (f < names_.size()) return names_[f];
  return full_name(f);
}

std::string_view Analysis::short_name(FunctionId f) const {
  const std::vector<std::string>& names = options_.names == NameStyle::Short ? names_ : short_names_;
  return f < names.size() ? std::string_view(names[f]) : full_name(f);
}

std::string_view Analysis::full_name(FunctionId f) const {
  if (f == kNoFunction) return "<spontaneous>";
  if (f < profile_->functions.size()) return profile_->functions[f].name;
  auto it = unknown_names_.find(f);
  return it == unknown_names_.end() ? "<unknown function>" : std::string_view(it->second);
}

std::string_view Analysis::module(FunctionId f) const {
  if (f >= profile_->functions.size()) return "";
  const ModuleId m = profile_->functions[f].module;
  if (m >= profile_->modules.size()) return "";
  return base_name(profile_->modules[m].path);
}

std::string Analysis::path_text(std::span<const FunctionId> path) const {
  std::string s;
  for (FunctionId f : path) {
    if (!s.empty()) s += " > ";
    s += name(f);
  }
  return s;
}

const FunctionRow* Analysis::row(FunctionId f) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), f,
                             [](const FunctionRow& r, FunctionId id) { return r.function < id; });
  return it != functions_.end() && it->function == f ? &*it : nullptr;
}

}  // namespace callprof

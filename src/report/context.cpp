// Building the report context: thread selection, aggregation, filter compilation.
#include "report/context.h"

#include <fmt/format.h>

#include <algorithm>

#include "graph/threads.h"
#include "model/transform/graft.h"
#include "model/transform/merge.h"
#include "report/text.h"

namespace callprof {
namespace {

Status check_thread(const Profile& profile, uint32_t tid) {
  for (const Thread& t : profile.threads)
    if (t.tid == tid) return Ok{};
  std::string known;
  for (size_t i = 0; i < profile.threads.size() && i < 10; ++i)
    known += fmt::format("{}{}", i ? ", " : "", profile.threads[i].tid);
  if (profile.threads.size() > 10) known += ", ...";
  if (known.empty()) known = "none";
  return make_error(fmt::format("thread {} is not in the profile (threads: {})", tid, known));
}

bool offcpu_measured(const Profile& profile) {
  return std::any_of(profile.threads.begin(), profile.threads.end(),
                     [](const Thread& t) { return t.offcpu == Thread::OffCpu::Measured; });
}

}  // namespace

std::vector<size_t> report_threads(const Profile& profile, const ReportOptions& options) {
  std::vector<size_t> out;
  if (!options.thread) {
    for (size_t i = 0; i < profile.threads.size(); ++i) out.push_back(i);
    return out;
  }
  if (!options.graft && options.merge_threads != "start") {
    for (size_t i = 0; i < profile.threads.size(); ++i)
      if (profile.threads[i].tid == *options.thread) out.push_back(i);
    return out;
  }
  // The selected thread's subtree of the creation forest (pre-order: it ends where the
  // depth falls back to the thread's own).
  const std::vector<ForestEntry> forest = thread_forest(profile);
  for (size_t i = 0; i < forest.size(); ++i) {
    if (profile.threads[forest[i].index].tid != *options.thread) continue;
    out.push_back(forest[i].index);
    for (size_t j = i + 1; j < forest.size() && forest[j].depth > forest[i].depth; ++j) out.push_back(forest[j].index);
  }
  return out;
}

Result<ReportContext> ReportContext::make(const Profile& profile, const ReportOptions& options,
                                          std::optional<CallTree> tree_override) {
  if (options.thread) {
    Status ok = check_thread(profile, *options.thread);
    if (!ok) return ok.error();
  }
  ReportContext ctx(profile, options);
  if (tree_override)
    ctx.merged_ = std::move(tree_override);
  else
    ctx.select_tree();
  const CallTree& tree = ctx.tree();
  ctx.nodes_ = node_quantities(tree);
  ctx.functions_ = function_rows(tree, ctx.nodes_);
  ctx.edges_ = edge_rows(tree, ctx.nodes_);
  ctx.stats_ = tree_stats(tree, ctx.nodes_);
  ctx.grand_total_ns_ = callprof::grand_total_ns(tree, ctx.nodes_.cum);
  ctx.cpu_measured_ = offcpu_measured(profile) || ctx.stats_.cpu_measured();
  ctx.name_unknown_functions();
  if (Status ok = ctx.compile_filter(); !ok) return ok.error();
  return ctx;
}

bool ReportContext::compensated() const {
  return profile_->meta.compensated;
}

void ReportContext::select_tree() {
  if (options_->graft) {
    merged_ = grafted_tree(*profile_, report_threads(*profile_, *options_));
    return;
  }
  std::vector<const Thread*> chosen;
  for (const Thread& t : profile_->threads)
    if (!options_->thread || t.tid == *options_->thread) chosen.push_back(&t);
  if (chosen.size() == 1) {
    single_ = &chosen[0]->tree;
    return;
  }
  std::vector<uint32_t> tids;
  if (options_->thread) tids.push_back(*options_->thread);
  merged_ = merged_tree(*profile_, tids);
}

void ReportContext::name_unknown_functions() {
  const size_t known = profile_->functions.size();
  auto add = [&](FunctionId f) {
    if (f >= known && f != kNoFunction) unknown_names_.try_emplace(f, fmt::format("<function #{}>", f));
  };
  for (const FunctionRow& r : functions_) add(r.function);
  for (const Thread& t : profile_->threads) {
    add(t.start_routine);
    for (FunctionId f : t.creator_path) add(f);
  }
}

Status ReportContext::compile_filter() {
  match_.assign(profile_->functions.size(), true);
  if (options_->filter.empty()) return Ok{};
  // std::regex reports bad patterns, and patterns too complex for an input, by throwing.
  try {
    filter_.emplace(options_->filter, std::regex::ECMAScript);
    for (size_t f = 0; f < profile_->functions.size(); ++f)
      match_[f] = std::regex_search(profile_->functions[f].name, *filter_);
    for (const auto& [f, name] : unknown_names_) match_unknown_[f] = std::regex_search(name, *filter_);
  } catch (const std::regex_error& e) {
    return make_error(fmt::format("invalid filter regex '{}': {}", escape_text(options_->filter), e.what()));
  }
  return Ok{};
}

std::string_view ReportContext::name(FunctionId f) const {
  if (f == kNoFunction) return "<spontaneous>";
  if (f < profile_->functions.size()) return profile_->functions[f].name;
  auto it = unknown_names_.find(f);
  return it == unknown_names_.end() ? "<unknown function>" : std::string_view(it->second);
}

std::string ReportContext::path_text(std::span<const FunctionId> path) const {
  std::string s;
  for (FunctionId f : path) {
    if (!s.empty()) s += " > ";
    s += name(f);
  }
  return s;
}

std::string_view ReportContext::module(FunctionId f) const {
  if (f >= profile_->functions.size()) return "";
  const ModuleId m = profile_->functions[f].module;
  if (m >= profile_->modules.size()) return "";
  return base_name(profile_->modules[m].path);
}

bool ReportContext::matches(FunctionId f) const {
  if (f < match_.size()) return match_[f];
  auto it = match_unknown_.find(f);
  return it == match_unknown_.end() ? options_->filter.empty() : it->second;
}

bool ReportContext::matches_text(std::string_view s) const {
  if (!filter_) return true;
  try {
    return std::regex_search(s.begin(), s.end(), *filter_);
  } catch (const std::regex_error&) {
    return false;  // too complex for this input: treat as no match rather than fail late
  }
}

const FunctionRow* ReportContext::row(FunctionId f) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), f,
                             [](const FunctionRow& r, FunctionId id) { return r.function < id; });
  return it != functions_.end() && it->function == f ? &*it : nullptr;
}

}  // namespace callprof

// Building the report context: thread selection, filter compilation, aggregation.
#include "report/context.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

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

}  // namespace

Result<ReportContext> ReportContext::make(const Profile& profile, const ReportOptions& options) {
  ReportContext ctx(profile, options);
  std::vector<uint32_t> tids;
  if (options.thread) {
    Status ok = check_thread(profile, *options.thread);
    if (!ok) return ok.error();
    tids.push_back(*options.thread);
  }
  ctx.tree_ = merged_tree(profile, tids);
  ctx.shown_threads_ = 0;
  for (const Thread& t : profile.threads) ctx.shown_threads_ += tids.empty() || t.tid == tids[0];
  ctx.functions_ = function_rows(ctx.tree_);
  ctx.edges_ = edge_rows(ctx.tree_);
  ctx.stats_ = tree_stats(ctx.tree_);
  ctx.grand_total_ns_ = callprof::grand_total_ns(ctx.tree_);
  ctx.match_.assign(profile.functions.size(), true);
  if (options.filter.empty()) return ctx;
  // std::regex reports bad patterns, and patterns too complex for an input, by throwing.
  try {
    ctx.filter_.emplace(options.filter, std::regex::ECMAScript);
    const std::regex& re = *ctx.filter_;
    for (size_t f = 0; f < profile.functions.size(); ++f)
      ctx.match_[f] = std::regex_search(profile.functions[f].name, re);
    for (const FunctionRow& r : ctx.functions_)
      if (r.function >= profile.functions.size())
        ctx.match_unknown_[r.function] = std::regex_search(ctx.name(r.function), re);
  } catch (const std::regex_error& e) {
    return make_error(fmt::format("invalid filter regex '{}': {}", escape_text(options.filter),
                                  e.what()));
  }
  return ctx;
}

std::string ReportContext::name(FunctionId f) const {
  if (f == kNoFunction) return "<spontaneous>";
  if (f < profile_->functions.size()) return profile_->functions[f].name;
  return fmt::format("<function #{}>", f);
}

std::string ReportContext::module(FunctionId f) const {
  if (f >= profile_->functions.size()) return "";
  const ModuleId m = profile_->functions[f].module;
  if (m >= profile_->modules.size()) return "";
  return std::string(base_name(profile_->modules[m].path));
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

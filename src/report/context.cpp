// The report context: the analysis plus the compiled row filter.
#include "report/context.h"

namespace callprof {

Result<ReportContext> ReportContext::make(const Analysis& analysis, const ReportOptions& options) {
  ReportContext ctx(analysis, options);
  if (options.filter.empty()) return ctx;
  auto pattern = Pattern::compile(options.filter, "--filter");
  if (!pattern) return pattern.error();
  ctx.filter_ = std::move(pattern).value();
  ctx.match_ = matching_functions(analysis.profile(), *ctx.filter_);
  return ctx;
}

bool ReportContext::matches(FunctionId f) const {
  if (!filter_) return true;
  if (f < match_.size()) return match_[f];
  return filter_->search(analysis_->full_name(f));
}

bool ReportContext::matches_text(std::string_view s) const { return !filter_ || filter_->search(s); }

}  // namespace callprof

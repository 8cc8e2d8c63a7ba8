// The short header every text view starts with: what was profiled and how much of it.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "query/sample_agreement.h"
#include "report/context.h"

namespace callprof {

// Its lines fit options().width (0: no limit): a longer one is wrapped at spaces (hard at
// the width where there is none), continued under its value as "#           ...".
void write_header(std::ostream& out, const ReportContext& ctx, std::string_view title);
// That wrapping, of '\n'-ended lines.
std::string wrap_header_lines(std::string_view text, size_t width);

// Samples inside exact mode (unwind "shadow-stack", times measured): the functions whose
// exact self CPU time the samples contradict; none for any other profile or --time sampled.
std::vector<SampleDisagreement> exact_sample_disagreements(const ReportContext& ctx);

// "# 12 functions below 0.5 % hidden (--percent-limit 0 shows them)" when anything was
// hidden; `what` is singular ("function").
void write_hidden_footer(std::ostream& out, size_t hidden, std::string_view what, double percent_limit);

}  // namespace callprof

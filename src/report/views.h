// The individual views behind render_report; each writes one complete report.
// The options were validated by render_report except the sort column, which each
// view checks against its own columns before writing anything.
#pragma once

#include <ostream>

#include "report/context.h"
#include "util/result.h"

namespace callprof {

Status render_flat(const ReportContext& ctx, std::ostream& out);
Status render_callers(const ReportContext& ctx, std::ostream& out);
Status render_tree(const ReportContext& ctx, std::ostream& out);
Status render_threads(const ReportContext& ctx, std::ostream& out);
// threads view with --function: the matching functions, one row per thread.
Status render_thread_functions(const ReportContext& ctx, std::ostream& out);
Status render_summary(const ReportContext& ctx, std::ostream& out);
Status render_syscalls(const ReportContext& ctx, std::ostream& out);
// Time rolled up by shared object.
Status render_modules(const ReportContext& ctx, std::ostream& out);
// Every path that reaches the functions matching options().function, bottom-up.
Status render_callers_of(const ReportContext& ctx, std::ostream& out);
Status render_json(const ReportContext& ctx, std::ostream& out);

}  // namespace callprof

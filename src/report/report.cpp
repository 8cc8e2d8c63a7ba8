// render_report: validate the options, analyse once, dispatch to the view.
#include "report/report.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "report/columns.h"
#include "report/context.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

struct ViewEntry {
  View view;
  std::string_view name;
  Status (*render)(const ReportContext&, std::ostream&);
};

constexpr std::array<ViewEntry, 9> kViews = {{
    {View::Flat, "flat", render_flat},
    {View::Callers, "callers", render_callers},
    {View::Tree, "tree", render_tree},
    {View::Threads, "threads", render_threads},
    {View::Summary, "summary", render_summary},
    {View::Syscalls, "syscalls", render_syscalls},
    {View::Modules, "modules", render_modules},
    {View::CallersOf, "callers-of", render_callers_of},
    {View::CalleesOf, "callees-of", render_tree},  // the tree focused on the function
}};

const ViewEntry& entry(View v) {
  for (const ViewEntry& e : kViews)
    if (e.view == v) return e;
  return kViews[0];
}

bool needs_function(View v) { return v == View::CallersOf || v == View::CalleesOf; }

// The views that read only the analysed tree and its aggregates: the threads' own trees can
// go once they are merged (the syscalls view reads them; JSON's per-thread breakdowns and
// the threads view's rows with --function are taken by the analysis before,
// QueryOptions::thread_rows).
bool reads_only_the_tree(const ReportOptions& o) {
  if (o.json) return true;  // its per-thread breakdowns come from the analysis (thread_rows)
  switch (o.view) {
    case View::Flat:
    case View::Callers:
    case View::Tree:
    case View::Summary:
    case View::Modules:
    case View::CallersOf:
    case View::CalleesOf:
    case View::Threads:
      return true;  // the analysis's per-thread totals, and rows with --function
    case View::Syscalls:
      break;
  }
  return false;
}

Status check_options(const ReportOptions& o) {
  if (needs_function(o.view) && o.function.empty())
    return make_error(fmt::format("the {} view needs --function REGEX", view_name(o.view)));
  if (!o.function.empty() && !needs_function(o.view) && (o.view != View::Threads || o.json))
    return make_error("--function applies to the threads view (without --json) and to callers-of and callees-of");
  if (o.view == View::CalleesOf && !o.query.focus.empty())
    return make_error("callees-of is the tree focused on --function: give it without --focus");
  if (!(o.percent_limit >= 0 && o.percent_limit <= 100))
    return make_error("--percent-limit takes a share from 0 to 100");
  return Ok{};
}

}  // namespace

std::optional<JsonLayout> parse_json_layout(std::string_view name) {
  if (name == "nested") return JsonLayout::Nested;
  if (name == "flat") return JsonLayout::Flat;
  if (name == "columns") return JsonLayout::Columns;
  return std::nullopt;
}

std::optional<View> parse_view(std::string_view name) {
  for (const ViewEntry& e : kViews)
    if (e.name == name) return e.view;
  return std::nullopt;
}

std::string_view view_name(View view) { return entry(view).name; }

Status render_report(const Analysis& analysis, const ReportOptions& options, std::ostream& out) {
  if (Status s = check_options(options); !s) return s;
  auto ctx = ReportContext::make(analysis, options);
  if (!ctx) return ctx.error();
  return options.json ? render_json(*ctx, out) : entry(options.view).render(*ctx, out);
}

QueryOptions report_query(const ReportOptions& options) {
  QueryOptions query = options.query;
  if (options.view == View::CalleesOf) query.focus = options.function;
  query.keep_thread_trees = !reads_only_the_tree(options);
  query.thread_rows = options.json || (options.view == View::Threads && !options.function.empty());
  return query;
}

Status render_report(Profile profile, ThreadIntake intake, const ReportOptions& options, std::ostream& out) {
  if (Status s = check_options(options); !s) return s;
  auto analysis = Analysis::run_intake(std::move(profile), std::move(intake));
  if (!analysis) return analysis.error();
  return render_report(*analysis, options, out);
}

Status render_report(Profile profile, const ReportOptions& options, std::ostream& out) {
  return render_report(std::move(profile), ThreadIntake(report_query(options)), options, out);
}

std::vector<Metric> metrics_not_read(const ReportOptions& o) {
  if (o.json || o.view == View::Threads || o.view == View::Syscalls) return {};
  return metrics_no_column_reads(o.columns, o.sort);
}

}  // namespace callprof

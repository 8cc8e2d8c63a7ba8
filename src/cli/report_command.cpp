// `callprof report`: read a profile and render one view.
#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/pager.h"
#include "report/report.h"
#include "trace/profile_file.h"

namespace callprof::cli {
namespace {

struct ReportArgs {
  std::string input = "callprof.data";
  ReportOptions options;
  std::string view = "flat", names = "short", merge_threads = "paths";
  uint32_t thread = 0, pid = 0;
  bool graft = false, wide = false, no_pager = false;
  size_t width = 0;
};

// Typed options from the parsed strings; one error line for a value that is not known.
Status resolve(ReportArgs& a, const CLI::Option* thread, const CLI::Option* pid, const CLI::Option* width) {
  const auto view = parse_view(a.view);
  if (!view)
    return make_error(fmt::format("unknown view '{}' (valid: flat, callers, tree, threads, summary, syscalls, "
                                  "modules, callers-of, callees-of)", a.view));
  const auto names = parse_name_style(a.names);
  if (!names) return make_error(fmt::format("unknown --names style '{}' (valid: short, templates, full)", a.names));
  const auto merge = parse_thread_merge(a.merge_threads);
  if (!merge || *merge == ThreadMerge::Graft)
    return make_error(fmt::format("unknown --merge-threads mode '{}' (valid: paths, start)", a.merge_threads));
  if (a.graft && *merge == ThreadMerge::StartRoutine) return make_error("--graft and --merge-threads=start exclude each other");
  if (a.wide && width->count() > 0) return make_error("--width and -w/--wide exclude each other");
  ReportOptions& o = a.options;
  o.view = *view;
  o.query.names = *names;
  o.query.merge = a.graft ? ThreadMerge::Graft : *merge;
  if (thread->count() > 0) o.query.tid = a.thread;
  if (pid->count() > 0) o.query.pid = a.pid;
  // Cut names to the terminal only where a person reads them; JSON and pipes get them whole.
  o.width = a.wide || o.json ? 0 : width->count() > 0 ? a.width : terminal_width();
  return Ok{};
}

const CLI::Validator kNonNegative(
    [](std::string& v) { return v.rfind('-', 0) == 0 ? std::string("must be 0 or more") : std::string(); }, "N");

}  // namespace

Run add_report(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  ReportOptions& o = a->options;
  app.add_option("-i,--input", a->input, "Profile to read")->capture_default_str();
  app.add_option("--view", a->view,
                 "flat | callers | tree | threads | summary | syscalls | modules | callers-of | callees-of")
      ->capture_default_str();
  app.add_option("-s,--sort", o.sort, "Sort by this column (the view's default when empty)");
  app.add_option("--filter", o.filter, "Only rows whose function name matches this regular expression (RE2)");
  auto* thread = app.add_option("--thread", a->thread, "Only this thread id (default: all threads merged)");
  auto* pid = app.add_option("--pid", a->pid, "Only this process of a multi-process profile");
  app.add_option("--focus", o.query.focus,
                 "Re-root at the functions matching this regex: what they do, whatever their caller; "
                 "percentages of their total");
  app.add_option("--hide", o.query.hide, "Fold the functions matching this regex into their callers");
  app.add_option("--function", o.function,
                 "callers-of / callees-of: the function (regex); threads view: per-thread rows of these functions");
  app.add_option("--names", a->names, "short (no parameters, template arguments as <…>) | templates | full")
      ->capture_default_str();
  app.add_flag("--json", o.json, "Write the whole JSON document (docs/json.md) instead of text");
  app.add_option("--limit", o.limit, "At most this many rows (0: the view's default)")->check(kNonNegative);
  app.add_option("--percent-limit", o.percent_limit,
                 "Hide rows (tree: fold subtrees) below this % of the view's total; 0 shows all")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
  app.add_flag("--raw", o.query.raw, "Times as measured, without compensating the hook overhead");
  app.add_option("--columns", o.columns,
                 "flat, tree, callers: columns to show: a,b (exactly), +a,-b (change the default set), all");
  app.add_flag("--graft", a->graft, "One program-wide tree: threads under the call path that created them");
  app.add_option("--merge-threads", a->merge_threads,
                 "paths: merge threads path by path | start: one tree per thread start routine")
      ->capture_default_str();
  auto* width = app.add_option("--width", a->width, "Cut names so lines fit N columns (default: the terminal's)")
                    ->check(kNonNegative);
  app.add_flag("-w,--wide", a->wide, "Never cut names");
  app.add_flag("--no-pager", a->no_pager, "Write to the terminal directly, without $PAGER (default less -FRSX)");
  return [a, thread, pid, width]() {
    if (Status s = resolve(*a, thread, pid, width); !s) return fail(s.error().message);
    auto profile = read_profile(a->input);
    if (!profile) return fail(profile.error().message);
    std::ostringstream out;
    if (auto s = render_report(std::move(*profile), a->options, out); !s) return fail(s.error().message);
    return write_paged(out.str(), !a->no_pager) ? 0 : 1;
  };
}

}  // namespace callprof::cli

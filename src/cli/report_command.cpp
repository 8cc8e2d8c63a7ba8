// `callprof report`: read a profile and render one view.
#include <fmt/format.h>
#include <unistd.h>

#include <sstream>

#include "cli/commands.h"
#include "cli/help_text.h"
#include "cli/number_options.h"
#include "cli/pager.h"
#include "cli/selection_options.h"
#include "cli/stdout_stream.h"
#include "cli/symbol_options.h"
#include "report/columns.h"
#include "report/report.h"
#include "trace/profile_file.h"
#include "util/escape.h"

namespace callprof::cli {
namespace {

struct ReportArgs {
  std::string input = "callprof.data";
  ReportOptions options;
  SelectionOptions selection;
  std::string view = "flat";
  std::string json_layout = "nested";
  bool wide = false, no_pager = false;
  size_t width = 0;
};

// Typed options from the parsed strings; one error line for a value that is not known.
Status resolve(ReportArgs& a, const CLI::Option* width, const CLI::Option* layout_option) {
  const auto view = parse_view(a.view);
  if (!view)
    return make_error(
        fmt::format("unknown view '{}' (valid: flat, callers, tree, threads, summary, syscalls, "
                    "modules, callers-of, callees-of)",
                    a.view));
  auto query = a.selection.resolve();
  if (!query) return query.error();
  if (a.wide && width->count() > 0) return make_error("--width and -w/--wide exclude each other");
  const auto layout = parse_json_layout(a.json_layout);
  if (!layout)
    return make_error(
        fmt::format("unknown --json-layout '{}' (valid: nested, flat, columns)", escape_text(a.json_layout)));
  if (layout_option->count() > 0 && !a.options.json) return make_error("--json-layout applies to --json");
  a.options.json_layout = *layout;
  ReportOptions& o = a.options;
  o.view = *view;
  o.query = std::move(query).value();
  // Cut names to the terminal only where a person reads them; JSON and pipes get them whole.
  o.width = a.wide || o.json ? 0 : width->count() > 0 ? a.width : terminal_width();
  return Ok{};
}

// One line per view for --help (what README.md's "What each view shows" says at length).
constexpr const char* kViewsHelp =
    "Views (--view):\n"
    "  flat        one row per function, hottest self time first (the default; pprof's top)\n"
    "  callers     each function with its callers and callees, and the calls and time along each edge\n"
    "  tree        the calling context tree: one row per call path, indented; small subtrees folded\n"
    "  callers-of  every call path that reaches --function REGEX, bottom-up (the inverted tree)\n"
    "  callees-of  everything --function REGEX did, whatever its caller, as one tree (pprof's peek)\n"
    "  modules     time by shared object\n"
    "  threads     processes and threads: who created whom and where, start, duration, time\n"
    "  syscalls    traced system calls (record --syscalls): statistics, by function, the paths to each\n"
    "  summary     the profile's size, calls and depth; the hottest functions, edges and paths\n"
    "\n"
    "Example: callprof report -i prog.callprof --view tree --percent-limit 2 --focus '^parse'";

// --sort's keys, the choices laid out for the help and the bash completion: the metric
// columns (report/columns.h) and, for the threads view, threads_view.cpp's own keys.
std::string sort_help() {
  std::vector<std::string> keys;
  for (const MetricColumnDef& c : metric_columns()) keys.emplace_back(c.key);
  keys.insert(keys.end(), {"module", "name"});
  return "Sort by this column (default: the view's); flat, callers, tree, callees-of, summary:\n" + choice_lines(keys) +
         ";\nthreads view: " +
         choice_lines({"tid", "name", "start", "duration", "calls", "total", "cpu", "offcpu", "preempted", "dropped"},
                      50) +
         ";\ntree and callees-of also take base and cum (pprof's self and total), not module";
}

}  // namespace

Run add_report(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  ReportOptions& o = a->options;
  app.add_option("-i,--input", a->input, "Profile to read (- for standard input)")
      ->type_name("FILE")
      ->capture_default_str();
  app.add_option("--view", a->view,
                 "flat | callers | tree | callers-of | callees-of | modules | threads | syscalls | summary "
                 "(one line each below)")
      ->type_name("VIEW")
      ->capture_default_str();
  app.add_option("-s,--sort", o.sort, sort_help())->type_name("COLUMN");
  app.add_option("--filter", o.filter, "Only rows whose function name matches this regular expression (RE2)")
      ->type_name("REGEX");
  app.add_option("--function", o.function,
                 "callers-of / callees-of: the function (regex); threads view: per-thread rows of these functions")
      ->type_name("REGEX");
  a->selection.add_to(app);
  app.add_flag("--json", o.json, "Write the whole JSON document (docs/json.md) instead of text");
  auto* layout =
      app.add_option("--json-layout", a->json_layout,
                     "nested: the tree nested (cut at 80 levels, marked) | flat: nodes with parent ids, any depth | "
                     "columns: nodes and edges as columns")
          ->type_name("LAYOUT")
          ->capture_default_str();
  add_count_option(app, "--limit", o.limit, "At most this many rows (0: the view's default)");
  add_real_option(app, "--percent-limit", o.percent_limit,
                  "Hide rows (tree: fold subtrees) below this % of the view's total; 0 shows all", 0, 100)
      ->type_name("PCT");
  app.add_option("--columns", o.columns,
                 "flat, tree, callers: columns to show: a,b (exactly), +a,-b (change the default set), all; "
                 "the metric keys of --sort")
      ->type_name("LIST");
  auto* width = add_count_option(app, "--width", a->width, "Cut names so lines fit N columns (default: the terminal's)",
                                 0, 100000);
  app.add_flag("-w,--wide", a->wide, "Never cut names");
  app.add_flag("-v,--verbose", o.verbose,
               "List the header's lists in full (the folded functions), not cut to the width");
  app.add_flag("--no-pager", a->no_pager, "Write to the terminal directly, without $PAGER (default less -FRSX)");
  app.footer(kViewsHelp);
  return [a, width, layout]() {
    if (Status s = resolve(*a, width, layout); !s) return fail(s.error().message);
    // Metric columns the report will not read are left undecoded, and a view of the merged
    // tree takes each thread as it is read (less memory and time).
    ThreadIntake intake(report_query(a->options));
    ReadOptions read{metrics_not_read(a->options), intake.sink()};
    auto profile = read_profile(a->input, read);
    if (!profile) return fail(profile.error().message);
    name_unnamed_functions_now(*profile);
    // A report for a program or a file (not a terminal: no pager) streams out: JSON or a
    // tree of every path can be hundreds of MB, and a view fails, if at all, before its
    // first byte (its options are checked first).
    if (!isatty(STDOUT_FILENO)) {
      StdoutBuffer buffer;
      std::ostream out(&buffer);
      if (auto s = render_report(std::move(*profile), std::move(intake), a->options, out); !s)
        return fail(s.error().message);
      out.flush();
      return buffer.failed() ? fail("cannot write the report to standard output") : 0;
    }
    std::ostringstream out;
    if (auto s = render_report(std::move(*profile), std::move(intake), a->options, out); !s)
      return fail(s.error().message);
    return write_paged(out.str(), !a->no_pager) ? 0 : 1;
  };
}

}  // namespace callprof::cli

// `callprof report`: read a profile and render one view.
#include <fmt/format.h>

#include <sstream>

#include <unistd.h>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/pager.h"
#include "cli/selection_options.h"
#include "cli/stdout_stream.h"
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
    return make_error(fmt::format("unknown view '{}' (valid: flat, callers, tree, threads, summary, syscalls, "
                                  "modules, callers-of, callees-of)", a.view));
  auto query = a.selection.resolve();
  if (!query) return query.error();
  if (a.wide && width->count() > 0) return make_error("--width and -w/--wide exclude each other");
  const auto layout = parse_json_layout(a.json_layout);
  if (!layout)
    return make_error(fmt::format("unknown --json-layout '{}' (valid: nested, flat, columns)", escape_text(a.json_layout)));
  if (layout_option->count() > 0 && !a.options.json) return make_error("--json-layout applies to --json");
  a.options.json_layout = *layout;
  ReportOptions& o = a.options;
  o.view = *view;
  o.query = std::move(query).value();
  // Cut names to the terminal only where a person reads them; JSON and pipes get them whole.
  o.width = a.wide || o.json ? 0 : width->count() > 0 ? a.width : terminal_width();
  return Ok{};
}

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
  app.add_option("--function", o.function,
                 "callers-of / callees-of: the function (regex); threads view: per-thread rows of these functions");
  a->selection.add_to(app);
  app.add_flag("--json", o.json, "Write the whole JSON document (docs/json.md) instead of text");
  auto* layout = app.add_option("--json-layout", a->json_layout,
                 "nested: the tree nested (cut at 80 levels, marked) | flat: nodes with parent ids, any depth | "
                 "columns: nodes and edges as columns")
      ->capture_default_str();
  add_count_option(app, "--limit", o.limit, "At most this many rows (0: the view's default)");
  add_real_option(app, "--percent-limit", o.percent_limit,
                  "Hide rows (tree: fold subtrees) below this % of the view's total; 0 shows all", 0, 100);
  app.add_option("--columns", o.columns,
                 "flat, tree, callers: columns to show: a,b (exactly), +a,-b (change the default set), all");
  auto* width = add_count_option(app, "--width", a->width, "Cut names so lines fit N columns (default: the terminal's)",
                                 0, 100000);
  app.add_flag("-w,--wide", a->wide, "Never cut names");
  app.add_flag("--no-pager", a->no_pager, "Write to the terminal directly, without $PAGER (default less -FRSX)");
  return [a, width, layout]() {
    if (Status s = resolve(*a, width, layout); !s) return fail(s.error().message);
    // Metric columns the report will not read are left undecoded, and a view of the merged
    // tree takes each thread as it is read (less memory and time).
    ThreadIntake intake(report_query(a->options));
    ReadOptions read{metrics_not_read(a->options), intake.sink()};
    auto profile = read_profile(a->input, read);
    if (!profile) return fail(profile.error().message);
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

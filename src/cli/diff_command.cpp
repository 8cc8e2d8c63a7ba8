// `callprof diff BASE NEW`: what changed between two profiles, by function and by path,
// beyond what two runs of the same program differ by anyway (query/diff.h).
#include <fmt/format.h>

#include <sstream>

#include "cli/commands.h"
#include "cli/help_text.h"
#include "cli/number_options.h"
#include "cli/pager.h"
#include "cli/selection_options.h"
#include "report/diff_view.h"
#include "trace/profile_file.h"

namespace callprof::cli {
namespace {

struct DiffArgs {
  std::string base, next, metric, scale = "typical";
  bool normalize = false, all = false, json = false, no_pager = false, wide = false;
  double min_change_pct = 0.5, min_spread_pct = kMinSpread * 100;
  size_t limit = 20;
  SelectionOptions selection;
};

void add_options(CLI::App& app, DiffArgs& a) {
  app.add_option("base", a.base, "The profile before")->type_name("FILE")->required();
  app.add_option("new", a.next, "The profile after")->type_name("FILE")->required();
  app.add_option("--metric,-s,--sort", a.metric,
                 "cpu | self | total | calls | samples: compare and rank by this (default: cpu when both runs "
                 "measured it and ran mostly on a CPU, else self)")
      ->type_name("METRIC");
  CLI::Option* scale = app.add_option("--scale", a.scale,
                                      "typical | total | none: divide the new run by its typical function's change, "
                                      "by its total's, or not at all")
                           ->type_name("HOW")
                           ->capture_default_str();
  app.add_flag("--normalize", a.normalize, "The same as --scale total")->excludes(scale);
  add_real_option(app, "--min-change", a.min_change_pct, "A change smaller than this % of the run's total is noise", 0,
                  100)
      ->type_name("PCT");
  add_real_option(app, "--min-spread", a.min_spread_pct,
                  "The least two runs' functions are assumed to differ by, in % (20: this project's VMs)", 0, 1000)
      ->type_name("PCT");
  app.add_flag("--all", a.all, "Also show the rows whose change is within noise (marked so)");
  add_count_option(app, "--limit", a.limit, "Rows per table (0: all)");
  app.add_flag("--json", a.json, "Write JSON (docs/json.md, diff) instead of text");
  app.add_flag("-w,--wide", a.wide, "Never cut names");
  app.add_flag("--no-pager", a.no_pager, "Write to the terminal directly, without $PAGER");
  a.selection.add_to(app);
}

// The typed diff options; one error line for a name that is not known.
Result<DiffOptions> diff_options(const DiffArgs& a) {
  DiffOptions o;
  o.min_change = a.min_change_pct / 100;
  o.min_spread = a.min_spread_pct / 100;
  o.all = a.all;
  o.limit = a.limit;
  if (!a.metric.empty()) {
    o.metric = parse_diff_metric(a.metric);
    if (!o.metric)
      return make_error(
          fmt::format("unknown --metric '{}' for diff (valid: cpu, self, total, calls, samples)", a.metric));
  }
  const auto scale = parse_diff_scale(a.normalize ? "total" : a.scale);
  if (!scale) return make_error(fmt::format("unknown --scale '{}' (valid: typical, total, none)", a.scale));
  o.scale = *scale;
  return o;
}

}  // namespace

Run add_diff(CLI::App& app) {
  auto a = std::make_shared<DiffArgs>();
  add_options(app, *a);
  set_usage(app, "[OPTIONS] BASE NEW");
  app.footer(
      "Example: callprof diff before.callprof after.callprof\n"
      "         callprof diff --metric calls --all before.callprof after.callprof");
  return [a]() {
    auto options = diff_options(*a);
    if (!options) return fail(options.error().message);
    auto query = a->selection.resolve();
    if (!query) return fail(query.error().message);
    query->keep_thread_trees = false;  // only the analysed tree is read
    auto base = analyse_profile(a->base, *query);
    if (!base) return fail(base.error().message);
    auto next = analyse_profile(a->next, *query);
    if (!next) return fail(next.error().message);
    auto d = diff_analyses(*base, *next, *options);
    if (!d) return fail(fmt::format("{} (base {}, new {})", d.error().message, a->base, a->next));
    DiffReportOptions o{.base_label = a->base + ": " + base->profile().meta.command,
                        .next_label = a->next + ": " + next->profile().meta.command,
                        .json = a->json,
                        .all = a->all,
                        .width = a->wide || a->json ? 0 : terminal_width()};
    std::ostringstream out;
    render_diff(*d, o, out);
    return write_paged(out.str(), !a->no_pager) ? 0 : 1;
  };
}

}  // namespace callprof::cli

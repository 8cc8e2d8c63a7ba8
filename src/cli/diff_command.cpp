// `callprof diff BASE NEW`: what changed between two profiles, by function and by path.
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
Run add_diff(CLI::App& app) {
  struct Args {
    std::string base, next, sort = "self";
    bool normalize = false, json = false, no_pager = false, wide = false;
    size_t limit = 20;
    SelectionOptions selection;
  };
  auto a = std::make_shared<Args>();
  app.add_option("base", a->base, "The profile before")->type_name("FILE")->required();
  app.add_option("new", a->next, "The profile after")->type_name("FILE")->required();
  app.add_flag("--normalize", a->normalize, "Scale NEW's times so that its total equals BASE's");
  app.add_option("-s,--sort", a->sort, "self | total: rank by the change of this time")
      ->type_name("COLUMN")
      ->capture_default_str();
  add_count_option(app, "--limit", a->limit, "Rows per table (0: all)");
  app.add_flag("--json", a->json, "Write JSON (docs/json.md, diff) instead of text");
  app.add_flag("-w,--wide", a->wide, "Never cut names");
  app.add_flag("--no-pager", a->no_pager, "Write to the terminal directly, without $PAGER");
  a->selection.add_to(app);
  set_usage(app, "[OPTIONS] BASE NEW");
  app.footer("Example: callprof diff --normalize before.callprof after.callprof");
  return [a]() {
    if (a->sort != "self" && a->sort != "total")
      return fail(fmt::format("unknown --sort '{}' for diff (valid: self, total)", a->sort));
    auto query = a->selection.resolve();
    if (!query) return fail(query.error().message);
    query->keep_thread_trees = false;  // only the analysed tree is read
    auto base = analyse_profile(a->base, *query);
    if (!base) return fail(base.error().message);
    auto next = analyse_profile(a->next, *query);
    if (!next) return fail(next.error().message);
    const Diff d = diff_analyses(*base, *next, a->normalize,
                                 a->sort == "self" ? DiffOrder::SelfDelta : DiffOrder::TotalDelta, a->limit);
    DiffReportOptions o{.base_label = a->base + ": " + base->profile().meta.command,
                        .next_label = a->next + ": " + next->profile().meta.command,
                        .json = a->json,
                        .names = query->names,
                        .width = a->wide || a->json ? 0 : terminal_width()};
    std::ostringstream out;
    render_diff(d, o, out);
    return write_paged(out.str(), !a->no_pager) ? 0 : 1;
  };
}

}  // namespace callprof::cli

// render_report: validate the options, build the context once, dispatch to the view.
#include "report/report.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "model/transform/compensate.h"
#include "model/transform/graft.h"
#include "report/context.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

struct View {
  std::string_view name;
  Status (*render)(const ReportContext&, std::ostream&);
};

constexpr std::array<View, 6> kViews = {{
    {"flat", render_flat},
    {"callers", render_callers},
    {"tree", render_tree},
    {"threads", render_threads},
    {"summary", render_summary},
    {"syscalls", render_syscalls},
}};

Result<const View*> find_view(const ReportOptions& options) {
  for (const View& v : kViews)
    if (v.name == options.view) return &v;
  return make_error(
      fmt::format("unknown view '{}' (valid: flat, callers, tree, threads, summary, syscalls)", escape_text(options.view)));
}

Status check_options(const ReportOptions& o) {
  if (o.merge_threads != "paths" && o.merge_threads != "start")
    return make_error(fmt::format("unknown --merge-threads mode '{}' (valid: paths, start)", escape_text(o.merge_threads)));
  if (o.graft && o.merge_threads == "start") return make_error("--graft and --merge-threads=start exclude each other");
  if (!o.function.empty() && (o.view != "threads" || o.json))
    return make_error("--function applies to the threads view (--view threads, without --json)");
  return Ok{};
}

bool needs_changes(const Profile& profile, const ReportOptions& o) {
  return (!o.raw && has_hook_costs(profile)) || o.merge_threads == "start";
}

// `profile` is ours to change: compensate, and build the start-routine tree (which adds
// the group functions to the profile's table).
Status render_owned(Profile& profile, const ReportOptions& options, std::ostream& out) {
  auto view = find_view(options);
  if (!view) return view.error();
  if (Status s = check_options(options); !s) return s;
  if (!options.raw) compensate(profile);
  std::optional<CallTree> tree;
  if (options.merge_threads == "start") tree = merged_by_start_routine(profile, report_threads(profile, options));
  auto ctx = ReportContext::make(profile, options, std::move(tree));
  if (!ctx) return ctx.error();
  return options.json ? render_json(*ctx, out) : (*view)->render(*ctx, out);
}

}  // namespace

Status render_report(const Profile& profile, const ReportOptions& options, std::ostream& out) {
  if (!needs_changes(profile, options)) {
    auto view = find_view(options);
    if (!view) return view.error();
    if (Status s = check_options(options); !s) return s;
    auto ctx = ReportContext::make(profile, options);
    if (!ctx) return ctx.error();
    return options.json ? render_json(*ctx, out) : (*view)->render(*ctx, out);
  }
  Profile copy = profile;
  return render_owned(copy, options, out);
}

Status render_report(Profile&& profile, const ReportOptions& options, std::ostream& out) {
  return render_owned(profile, options, out);
}

}  // namespace callprof

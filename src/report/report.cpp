// render_report: validate the options, build the context once, dispatch to the view.
#include "report/report.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "report/context.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

struct View {
  std::string_view name;
  Status (*render)(const ReportContext&, std::ostream&);
};

constexpr std::array<View, 5> kViews = {{
    {"flat", render_flat},
    {"callers", render_callers},
    {"tree", render_tree},
    {"threads", render_threads},
    {"summary", render_summary},
}};

}  // namespace

Status render_report(const Profile& profile, const ReportOptions& options, std::ostream& out) {
  const View* view = nullptr;
  for (const View& v : kViews)
    if (v.name == options.view) view = &v;
  if (!view)
    return make_error(
        fmt::format("unknown view '{}' (valid: flat, callers, tree, threads, summary)", escape_text(options.view)));
  auto ctx = ReportContext::make(profile, options);
  if (!ctx) return ctx.error();
  return options.json ? render_json(*ctx, out) : view->render(*ctx, out);
}

}  // namespace callprof

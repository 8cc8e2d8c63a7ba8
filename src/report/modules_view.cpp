// Time rolled up by shared object (SPEC §3 "modules"): self time is additive across
// functions, so the module rows add up exactly to the view's total.
#include <fmt/format.h>

#include "graph/modules.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {

Status render_modules(const ReportContext& ctx, std::ostream& out) {
  const Profile& p = ctx.profile();
  const bool sampled = ctx.sampled(), cpu = ctx.cpu_measured();
  std::vector<Column> cols = {{sampled ? "samples" : "calls"}, {"self"}, {"self%"}};
  if (cpu) cols.insert(cols.end(), {{"cpu"}, {"off-cpu"}});
  // Waiting for a CPU, next to off-CPU time where it mattered (TreeStats::crowded), as in flat.
  const bool preempted = cpu && ctx.stats().crowded;
  if (preempted) cols.push_back({"preempted"});
  cols.insert(cols.end(), {{"functions"}, {"module", Align::Left}});
  Table t(std::move(cols));
  const uint64_t grand = ctx.grand_total_ns();
  for (const ModuleRow& m : module_rows(p, ctx.functions())) {
    if (m.module != kNoModule && !ctx.matches_text(p.modules[m.module].path)) continue;
    std::vector<std::string> cells = {std::to_string(sampled ? m.self[Metric::Samples] : m.calls), format_ns(m.self_ns),
                                      format_pct(m.self_ns, grand)};
    if (cpu) cells.insert(cells.end(), {format_ns(m.self[Metric::CpuNs]), format_ns(m.self[Metric::OffCpuNs])});
    if (preempted) cells.push_back(format_ns(m.self[Metric::PreemptedNs]));
    cells.push_back(std::to_string(m.functions));
    cells.push_back(m.module == kNoModule ? "[unknown]" : p.modules[m.module].path);
    t.add_row(std::move(cells));
  }
  write_header(out, ctx, "modules");
  t.render(out);
  return Ok{};
}

}  // namespace callprof

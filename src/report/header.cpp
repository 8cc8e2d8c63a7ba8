// Header lines, '#'-prefixed like perf's so tools can skip them.
#include "report/header.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/transform/compensate.h"
#include "report/text.h"

namespace callprof {
namespace {

// "12.5 ns/call", or "10.0-14.5 ns/call" when processes measured different costs; "" when
// no process measured any.
std::string hook_cost(const Profile& p) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const Process& proc : p.processes) {
    if (!has_hook_costs(proc)) continue;
    const double c = proc.hook_inner_ns + proc.hook_outer_ns;
    lo = any ? std::min(lo, c) : c;
    hi = any ? std::max(hi, c) : c;
    any = true;
  }
  if (!any) return "";
  return lo == hi ? fmt::format("{:.1f} ns/call", lo) : fmt::format("{:.1f}-{:.1f} ns/call", lo, hi);
}

void write_times_line(std::ostream& out, const ReportContext& ctx) {
  const std::string cost = hook_cost(ctx.profile());
  if (ctx.compensated())
    out << "# times:    compensated for measured hook overhead" << (cost.empty() ? "" : " (" + cost + ")")
        << "; --raw for raw numbers\n";
  else if (!cost.empty())
    out << "# times:    raw, not compensated for the measured hook overhead (" << cost << ")\n";
}

std::string thread_merge(const ReportOptions& o) {
  if (o.graft) return ", grafted under their creators' call paths";
  if (o.merge_threads == "start") return ", merged by start routine";
  return "";
}

}  // namespace

void write_header(std::ostream& out, const ReportContext& ctx, std::string_view title) {
  const Profile& p = ctx.profile();
  const Metadata& m = p.meta;
  out << "# callprof " << title << '\n';
  out << "# command:  " << escape_text(m.command.empty() ? "?" : m.command) << '\n';
  out << fmt::format("# mode:     {}, duration {}\n", escape_text(m.mode.empty() ? "?" : m.mode),
                     format_ns(uint64_t(std::max<int64_t>(m.duration_ns, 0))));
  std::string threads = fmt::format("{}", p.threads.size());
  if (ctx.options().thread) {
    const uint32_t tid = *ctx.options().thread;
    std::string name;
    for (const Thread& t : p.threads)
      if (t.tid == tid) name = t.name;
    threads = fmt::format("tid {} {} (of {})", tid, escape_text(name), p.threads.size());
  }
  out << fmt::format("# threads:  {}, processes: {}{}\n", threads, p.processes.size(), thread_merge(ctx.options()));
  if (m.sampling && m.mode == "sample")
    out << fmt::format("# samples:  {}, estimated total time {}\n", m.sampling->samples, format_ns(ctx.grand_total_ns()));
  else
    out << fmt::format("# calls:    {}, total time {}\n", ctx.stats().calls, format_ns(ctx.grand_total_ns()));
  write_times_line(out, ctx);
  if (const SamplingFacts* s = m.sampling ? &*m.sampling : nullptr)
    out << fmt::format("# sampling: {} at {} Hz, {} samples, {} unwinding; lost {} records, {} samples; "
                       "times are estimates (samples x period)\n",
                       escape_text(s->event), s->frequency_hz, s->samples, escape_text(s->unwind), s->lost_records,
                       s->lost_samples);
  if (const SyscallFacts* s = m.syscalls ? &*m.syscalls : nullptr)
    out << fmt::format("# syscalls: {} ({} stacks), {} calls traced, {} lost\n", escape_text(s->selection),
                       escape_text(s->stacks), s->events, s->lost_events);
  if (ctx.filtered()) out << "# filter:   " << escape_text(ctx.options().filter) << '\n';
  out << '\n';
}

}  // namespace callprof

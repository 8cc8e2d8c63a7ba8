// Header lines, '#'-prefixed like perf's so tools can skip them.
#include "report/header.h"

#include <fmt/format.h>

#include "report/text.h"

namespace callprof {

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
  out << fmt::format("# threads:  {}, processes: {}\n", threads, p.processes.size());
  out << fmt::format("# calls:    {}, total time {}\n", ctx.stats().calls, format_ns(ctx.grand_total_ns()));
  if (ctx.filtered()) out << "# filter:   " << escape_text(ctx.options().filter) << '\n';
  out << '\n';
}

}  // namespace callprof

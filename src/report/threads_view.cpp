// Threads and processes: a table per process (who, created where, when, how much), then
// the creation trees. The filter matches thread names and start routines.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "graph/threads.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

struct ThreadData {
  const ReportContext& ctx;
  std::vector<ThreadTotals> totals = thread_totals(ctx.profile());
  int64_t origin = earliest_thread_start_ns(ctx.profile());
};

// -1 when the thread has no end time yet.
int64_t duration(const Thread& t) { return t.end_ns != 0 && t.end_ns >= t.start_ns ? t.end_ns - t.start_ns : -1; }

using ThreadLess = std::function<bool(size_t, size_t)>;

Result<ThreadLess> thread_order(const ThreadData& d, std::string key) {
  const std::vector<Thread>& th = d.ctx.profile().threads;
  const ThreadData* p = &d;
  if (key.empty()) key = "tid";
  auto tid_then = [&th](auto primary) {
    return ThreadLess([&th, primary](size_t a, size_t b) {
      const auto va = primary(a), vb = primary(b);
      return va != vb ? va < vb : std::pair(th[a].tid, a) < std::pair(th[b].tid, b);
    });
  };
  // Ascending for identity and time-of-start, descending (negated) for amounts.
  if (key == "tid") return tid_then([](size_t) { return 0; });
  if (key == "name") return tid_then([&th](size_t i) { return th[i].name; });
  if (key == "start") return tid_then([&th](size_t i) { return th[i].start_ns; });
  if (key == "duration") return tid_then([&th](size_t i) { return -duration(th[i]); });
  if (key == "calls") return tid_then([p](size_t i) { return -int64_t(p->totals[i].calls); });
  if (key == "total") return tid_then([p](size_t i) { return -int64_t(p->totals[i].total_ns); });
  if (key == "dropped") return tid_then([&th](size_t i) { return -int64_t(th[i].dropped_calls); });
  return make_error(
      fmt::format("unknown sort column '{}' for the threads view (valid: tid, name, "
                  "start, duration, calls, total, dropped)",
                  escape_text(key)));
}

void add_thread(Table& t, const ThreadData& d, size_t i) {
  const Thread& th = d.ctx.profile().threads[i];
  const int64_t dur = duration(th);
  t.add_row({std::to_string(th.tid), th.name, th.creator_tid ? std::to_string(th.creator_tid) : "-",
             th.creator_path.empty() ? "-" : d.ctx.path_text(th.creator_path),
             th.start_routine == kNoFunction ? "-" : std::string(d.ctx.name(th.start_routine)),
             format_ms(th.start_ns - d.origin), dur < 0 ? "-" : format_ms(dur), std::to_string(d.totals[i].calls),
             format_ns(d.totals[i].total_ns), th.finished ? "finished" : "running", std::to_string(th.dropped_calls)});
}

Table thread_table() {
  return Table({{"tid"},
                {"name", Align::Left},
                {"creator"},
                {"created at", Align::Left},
                {"start routine", Align::Left},
                {"start"},
                {"duration"},
                {"calls"},
                {"total"},
                {"state", Align::Left},
                {"dropped"}});
}

bool selected(const ReportContext& ctx, const Thread& t) {
  if (ctx.options().thread && t.tid != *ctx.options().thread) return false;
  if (!ctx.filtered()) return true;
  return ctx.matches_text(t.name) || (t.start_routine != kNoFunction && ctx.matches(t.start_routine));
}

// Process groups in parent-forest order, then pids that only threads mention.
std::vector<std::pair<uint32_t, const Process*>> process_groups(const Profile& p) {
  std::vector<std::pair<uint32_t, const Process*>> groups;
  std::set<uint32_t> seen;
  for (const ForestEntry& e : process_forest(p)) {
    const Process& proc = p.processes[e.index];
    if (seen.insert(proc.pid).second) groups.push_back({proc.pid, &proc});
  }
  for (const Thread& t : p.threads)
    if (seen.insert(t.pid).second) groups.push_back({t.pid, nullptr});
  return groups;
}

void write_thread_tables(const ThreadData& d, const ThreadLess& less, std::ostream& out) {
  const Profile& p = d.ctx.profile();
  size_t budget = d.ctx.options().limit ? d.ctx.options().limit : SIZE_MAX;
  for (const auto& [pid, proc] : process_groups(p)) {
    std::vector<size_t> rows;
    for (size_t i = 0; i < p.threads.size(); ++i)
      if (p.threads[i].pid == pid && selected(d.ctx, p.threads[i])) rows.push_back(i);
    if (rows.empty() || budget == 0) continue;
    std::sort(rows.begin(), rows.end(), less);
    if (rows.size() > budget) rows.resize(budget);
    budget -= rows.size();
    if (proc)
      out << fmt::format("process {} (ppid {}): {}\n", pid, proc->ppid, escape_text(proc->command));
    else
      out << fmt::format("process {} (no process record)\n", pid);
    Table t = thread_table();
    for (size_t i : rows) add_thread(t, d, i);
    t.render(out, 2);
    out << '\n';
  }
}

void write_trees(const ReportContext& ctx, std::ostream& out) {
  const Profile& p = ctx.profile();
  out << "thread tree (creator > created):\n";
  for (const ForestEntry& e : thread_forest(p)) {
    const Thread& t = p.threads[e.index];
    std::string line = fmt::format("{} {}", t.tid, t.name);
    if (t.start_routine != kNoFunction) line += fmt::format(" [{}]", ctx.name(t.start_routine));
    out << std::string(2 + 2 * std::min<size_t>(e.depth, 64), ' ') << escape_text(line) << '\n';
  }
  if (p.processes.size() < 2) return;
  out << "\nprocess tree (parent > child):\n";
  for (const ForestEntry& e : process_forest(p)) {
    const Process& proc = p.processes[e.index];
    out << std::string(2 + 2 * std::min<size_t>(e.depth, 64), ' ')
        << escape_text(fmt::format("{} {}", proc.pid, proc.command)) << '\n';
  }
}

}  // namespace

Status render_threads(const ReportContext& ctx, std::ostream& out) {
  ThreadData d{ctx};
  auto less = thread_order(d, ctx.options().sort);
  if (!less) return less.error();
  write_header(out, ctx, "threads");
  write_thread_tables(d, *less, out);
  write_trees(ctx, out);
  return Ok{};
}

}  // namespace callprof

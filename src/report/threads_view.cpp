// Threads and processes: the process tree (forks and exec images), and in each process its
// threads as a creation tree with where they were created, their start routine and their
// time. The filter matches thread names and start routines.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>

#include "graph/threads.h"
#include "graph/tree_stats.h"
#include "model/lineage.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

// Each thread's creator in the profile's creation forest (SIZE_MAX for a root); links that
// form a cycle in damaged input are broken there, so these never do.
std::vector<size_t> forest_creators(const Profile& p) {
  std::vector<size_t> creator(p.threads.size(), SIZE_MAX);
  std::vector<size_t> open;  // the current path, by depth
  for (const ForestEntry& e : thread_forest(p)) {
    open.resize(e.depth);
    if (!open.empty()) creator[e.index] = open.back();
    open.push_back(e.index);
  }
  return creator;
}

// The threads' wait for a CPU against their wall time, as TreeStats::crowded judges a tree.
bool crowded_threads(const std::vector<ThreadTotals>& totals) {
  uint64_t preempted = 0, wall = 0;
  for (const ThreadTotals& t : totals) preempted += t.preempted_ns, wall += t.total_ns;
  return crowded(preempted, wall);
}

struct ThreadData {
  const ReportContext& ctx;
  std::vector<size_t> creator = forest_creators(ctx.profile());
  const std::vector<ThreadTotals>& totals = ctx.analysis().thread_totals();
  std::vector<size_t> process = thread_processes(ctx.profile());
  int64_t origin = earliest_thread_start_ns(ctx.profile());
  bool lost = std::any_of(ctx.profile().threads.begin(), ctx.profile().threads.end(),
                          [](const Thread& t) { return t.lost_events > 0; });
  const std::vector<size_t>& folded = ctx.analysis().thread_folded_counts();  // functions auto-folded per thread
  bool any_folded = std::any_of(folded.begin(), folded.end(), [](size_t n) { return n > 0; });
  // Waiting for a CPU gets its column as in the function tables (TreeStats::crowded), here
  // over every thread's time.
  bool preempted = ctx.cpu_measured() && crowded_threads(totals);
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
  if (key == "cpu") return tid_then([p](size_t i) { return -int64_t(p->totals[i].cpu_ns); });
  if (key == "offcpu") return tid_then([p](size_t i) { return -int64_t(p->totals[i].offcpu_ns); });
  if (key == "preempted") return tid_then([p](size_t i) { return -int64_t(p->totals[i].preempted_ns); });
  if (key == "dropped") return tid_then([&th](size_t i) { return -int64_t(th[i].dropped_calls); });
  return make_error(
      fmt::format("unknown sort column '{}' for the threads view (valid: tid, name, "
                  "start, duration, calls, total, cpu, offcpu, preempted, dropped)",
                  escape_text(key)));
}

// At most `max` bytes, cut at a character boundary, "…" marking the cut.
std::string shorten(std::string_view s, size_t max = 40) {
  if (s.size() <= max) return std::string(s);
  size_t cut = max - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "…";
}

// "main > spawn", or "main > … > pool > spawn" for longer paths.
std::string creator_path_text(const ReportContext& ctx, const Thread& t) {
  const auto& path = t.creator_path;
  if (path.empty()) return "-";
  std::string s;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path.size() > 3 && i > 0 && i < path.size() - 2) {
      if (i == 1) s += " > …";
      continue;
    }
    s += (i ? " > " : "") + shorten(ctx.name(path[i]));
  }
  return s;
}

void add_thread(Table& t, const ThreadData& d, size_t i, uint32_t depth) {
  const Thread& th = d.ctx.profile().threads[i];
  const ThreadTotals& tt = d.totals[i];
  const int64_t dur = duration(th);
  std::vector<std::string> cells = {std::to_string(th.tid),
                                    std::string(2 * std::min<size_t>(depth, 32), ' ') + th.name,
                                    creator_path_text(d.ctx, th),
                                    th.start_routine == kNoFunction ? "-" : shorten(d.ctx.name(th.start_routine)),
                                    format_ms(th.start_ns - d.origin),
                                    dur < 0 ? "-" : format_ms(dur),
                                    std::to_string(tt.calls),
                                    format_ns(tt.total_ns)};
  if (d.ctx.cpu_measured()) {
    const bool measured = th.offcpu == Thread::OffCpu::Measured || tt.cpu_ns || tt.offcpu_ns || tt.preempted_ns;
    cells.push_back(measured ? format_ns(tt.cpu_ns) : "-");
    cells.push_back(measured ? format_ns(tt.offcpu_ns) : "-");
    if (d.preempted) cells.push_back(measured ? format_ns(tt.preempted_ns) : "-");
  }
  cells.push_back(th.finished ? "finished" : "running");
  cells.push_back(std::to_string(th.dropped_calls + th.depth_limited_calls + th.short_calls));
  if (d.lost) cells.push_back(std::to_string(th.lost_events));
  if (d.any_folded) cells.push_back(std::to_string(d.folded[i]));
  t.add_row(std::move(cells));
}

Table thread_table(const ThreadData& d) {
  std::vector<Column> cols = {{"tid"},
                              {"name", Align::Left},
                              {"created at", Align::Left},
                              {"start routine", Align::Left},
                              {"start"},
                              {"duration"},
                              {"calls"},
                              {"wall"}};
  if (d.ctx.cpu_measured()) {
    cols.push_back({"cpu"});
    cols.push_back({"off-cpu"});
    if (d.preempted) cols.push_back({"preempted"});
  }
  cols.push_back({"state", Align::Left});
  cols.push_back({"not recorded"});
  if (d.lost) cols.push_back({"lost events"});
  if (d.any_folded) cols.push_back({"folded"});
  return Table(std::move(cols));
}

bool selected(const ReportContext& ctx, const Thread& t) {
  const QueryOptions& q = ctx.options().query;
  if ((q.tid && t.tid != *q.tid) || (q.pid && t.pid != *q.pid)) return false;
  if (!ctx.filtered()) return true;
  return ctx.matches_text(t.name) || (t.start_routine != kNoFunction && ctx.matches(t.start_routine));
}

// The creation forest of `threads` (a subset of one process's), siblings ordered by `less`,
// as (thread, depth). A thread whose creator is not in `threads` is a root. Linear in the
// group: the whole profile's forest was built once (ThreadData::creator), since building
// it per process made the view quadratic in processes.
std::vector<ForestEntry> sorted_forest(const ThreadData& d, const std::vector<size_t>& threads,
                                       const ThreadLess& less) {
  std::unordered_map<size_t, size_t> position;  // profile index -> position in `threads`
  for (size_t k = 0; k < threads.size(); ++k) position.emplace(threads[k], k);
  std::vector<std::vector<size_t>> kids(threads.size() + 1);  // by position; last: roots
  for (size_t k = 0; k < threads.size(); ++k) {
    const auto creator = position.find(d.creator[threads[k]]);
    kids[creator == position.end() ? threads.size() : creator->second].push_back(k);
  }
  std::vector<ForestEntry> out;
  std::vector<ForestEntry> stack;  // (position, depth)
  auto push_sorted = [&](std::vector<size_t>& k, uint32_t depth) {
    std::sort(k.begin(), k.end(), [&](size_t a, size_t b) { return less(threads[a], threads[b]); });
    for (auto it = k.rbegin(); it != k.rend(); ++it) stack.push_back({*it, depth});
  };
  push_sorted(kids.back(), 0);
  while (!stack.empty()) {
    const ForestEntry at = stack.back();
    stack.pop_back();
    out.push_back({threads[at.index], at.depth});
    push_sorted(kids[at.index], at.depth + 1);
  }
  return out;
}

std::string process_title(const Process& p) {
  std::string s = p.image ? fmt::format("pid {} image {}", p.pid, p.image) : fmt::format("pid {}", p.pid);
  if (!p.host.empty()) s = escape_text(p.host) + ": " + s;
  if (p.ppid) s += fmt::format(" (ppid {})", p.ppid);
  s += ": " + escape_text(p.command);
  if (p.death_signal) {
    const char* abbrev = sigabbrev_np(p.death_signal);
    s += abbrev ? fmt::format("; killed by signal {} (SIG{})", p.death_signal, abbrev)
                : fmt::format("; killed by signal {}", p.death_signal);
  }
  if (!p.complete) s += "; incomplete: data up to last snapshot";
  return s;
}

void write_group(const ThreadData& d, const ThreadLess& less, const std::vector<size_t>& threads, size_t& budget,
                 std::string_view title, size_t indent, std::ostream& out) {
  std::vector<size_t> rows;
  for (size_t i : threads)
    if (selected(d.ctx, d.ctx.profile().threads[i])) rows.push_back(i);
  out << std::string(indent, ' ') << title << '\n';
  if (rows.empty() || budget == 0) return;
  Table t = thread_table(d);
  for (const ForestEntry& e : sorted_forest(d, rows, less)) {
    if (budget == 0) break;
    add_thread(t, d, e.index, e.depth);
    --budget;
  }
  t.render(out, indent + 2);
}

void write_processes(const ThreadData& d, const ThreadLess& less, std::ostream& out) {
  const Profile& p = d.ctx.profile();
  size_t budget = d.ctx.options().limit ? d.ctx.options().limit : SIZE_MAX;
  std::vector<std::vector<size_t>> members(p.processes.size());
  std::map<uint32_t, std::vector<size_t>> orphans;  // threads of pids without a process record
  for (size_t i = 0; i < p.threads.size(); ++i) {
    if (d.process[i] != kNoIndex)
      members[d.process[i]].push_back(i);
    else
      orphans[p.threads[i].pid].push_back(i);
  }
  for (const ForestEntry& e : process_forest(p)) {
    const size_t indent = 2 * std::min<size_t>(e.depth, 32);
    write_group(d, less, members[e.index], budget, process_title(p.processes[e.index]), indent, out);
    out << '\n';
  }
  for (const auto& [pid, threads] : orphans) {
    write_group(d, less, threads, budget, fmt::format("pid {} (no process record)", pid), 0, out);
    out << '\n';
  }
}

}  // namespace

Status render_threads(const ReportContext& ctx, std::ostream& out) {
  if (!ctx.options().function.empty()) return render_thread_functions(ctx, out);
  ThreadData d{ctx};
  auto less = thread_order(d, ctx.options().sort);
  if (!less) return less.error();
  write_header(out, ctx, "threads");
  out << "# processes as a tree (children and exec images indented under their parent), each with\n"
         "# its threads as a creation tree (created threads indented under their creator)\n\n";
  write_processes(d, *less, out);
  return Ok{};
}

}  // namespace callprof

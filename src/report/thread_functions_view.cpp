// `--view threads --function REGEX`: how the matching functions' calls and time split
// between threads. One stanza per function (hottest first): its row over all threads,
// then one row per thread that ran it.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "graph/aggregate.h"
#include "report/header.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

struct ThreadRow {
  size_t thread = 0;  // index into profile.threads
  FunctionRow row;
};

using Stanzas = std::map<FunctionId, std::vector<ThreadRow>>;

Result<Stanzas> collect(const ReportContext& ctx) {
  const Profile& p = ctx.profile();
  auto pattern = Pattern::compile(ctx.options().function, "--function");
  if (!pattern) return pattern.error();
  const std::vector<bool> match = matching_functions(p, *pattern);
  Stanzas out;
  const std::vector<size_t>& threads = ctx.analysis().threads();
  for (size_t k = 0; k < threads.size(); ++k) {
    for (const FunctionRow& r : ctx.analysis().thread_rows(k)) {
      if (r.function >= p.functions.size()) continue;
      if (match[r.function]) out[r.function].push_back({threads[k], r});
    }
  }
  return out;
}

// Waiting for a CPU, next to off-CPU time where it mattered (TreeStats::crowded), as in flat.
bool preempted_column(const ReportContext& ctx) { return ctx.cpu_measured() && ctx.stats().crowded; }

std::vector<std::string> cells(const ReportContext& ctx, std::string tid, std::string name, const FunctionRow& r,
                               std::string function) {
  std::vector<std::string> c = {std::move(tid), std::move(name), std::to_string(r.calls), format_ns(r.self_ns),
                                format_ns(r.total_ns)};
  if (ctx.cpu_measured()) {
    c.push_back(format_ns(r.cpu_ns));
    c.push_back(format_ns(r.offcpu_ns));
    if (preempted_column(ctx)) c.push_back(format_ns(r.preempted_ns));
  }
  c.push_back(std::move(function));
  return c;
}

FunctionRow sum(const std::vector<ThreadRow>& rows) {
  FunctionRow all;
  for (const ThreadRow& t : rows) {
    all.calls += t.row.calls;
    all.self_ns += t.row.self_ns;
    all.total_ns += t.row.total_ns;
    all.cpu_ns += t.row.cpu_ns;
    all.offcpu_ns += t.row.offcpu_ns;
    all.preempted_ns += t.row.preempted_ns;
  }
  return all;
}

Result<std::function<uint64_t(const FunctionRow&)>> row_key(const std::string& key) {
  if (key.empty() || key == "total") return std::function([](const FunctionRow& r) { return r.total_ns; });
  if (key == "self") return std::function([](const FunctionRow& r) { return r.self_ns; });
  if (key == "calls") return std::function([](const FunctionRow& r) { return r.calls; });
  if (key == "cpu") return std::function([](const FunctionRow& r) { return r.cpu_ns; });
  if (key == "offcpu") return std::function([](const FunctionRow& r) { return r.offcpu_ns; });
  if (key == "preempted") return std::function([](const FunctionRow& r) { return r.preempted_ns; });
  return make_error(fmt::format(
      "unknown sort column '{}' for the threads view with --function (valid: total, self, calls, cpu, offcpu, "
      "preempted)",
      escape_text(key)));
}

}  // namespace

Status render_thread_functions(const ReportContext& ctx, std::ostream& out) {
  auto key = row_key(ctx.options().sort);
  if (!key) return key.error();
  auto stanzas = collect(ctx);
  if (!stanzas) return stanzas.error();
  std::vector<std::pair<FunctionRow, std::vector<ThreadRow>*>> order;
  for (auto& [f, rows] : *stanzas) {
    FunctionRow all = sum(rows);
    all.function = f;
    order.push_back({all, &rows});
  }
  auto hotter = [&](const FunctionRow& a, const FunctionRow& b) {
    return (*key)(a) != (*key)(b) ? (*key)(a) > (*key)(b) : a.function < b.function;
  };
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) { return hotter(a.first, b.first); });
  std::vector<Column> cols = {{"tid"}, {"thread", Align::Left}, {"calls"}, {"self"}, {"total"}};
  if (ctx.cpu_measured()) cols.insert(cols.end(), {{"cpu"}, {"off-cpu"}});
  if (preempted_column(ctx)) cols.push_back({"preempted"});
  cols.push_back({"function", Align::Left});
  Table t(std::move(cols));
  const std::vector<Thread>& threads = ctx.profile().threads;
  size_t shown = 0;
  for (auto& [all, rows] : order) {
    if (ctx.options().limit && shown++ == ctx.options().limit) break;
    t.add_row(cells(ctx, "all", fmt::format("{} thread{}", rows->size(), rows->size() == 1 ? "" : "s"), all,
                    std::string(ctx.name(all.function))));
    std::sort(rows->begin(), rows->end(), [&](const ThreadRow& a, const ThreadRow& b) {
      return (*key)(a.row) != (*key)(b.row) ? (*key)(a.row) > (*key)(b.row) : a.thread < b.thread;
    });
    for (const ThreadRow& r : *rows)
      t.add_row(cells(ctx, std::to_string(threads[r.thread].tid), threads[r.thread].name, r.row, ""));
    t.add_rule();
  }
  write_header(out, ctx, "functions by thread");
  out << "# per function: its numbers over all threads, then per thread (total: its outermost\n"
         "# calls in that thread)\n\n";
  t.render(out);
  return Ok{};
}

}  // namespace callprof

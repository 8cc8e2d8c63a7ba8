// The system-call view (SPEC §1.4): per system call its counts, errors and duration
// statistics; per function the calls it makes itself and below it; and for each system
// call the paths that reach it as an inverted tree (the call, then its callers).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/header.h"
#include "report/syscall_rows.h"
#include "report/table.h"
#include "report/text.h"
#include "report/views.h"

namespace callprof {
namespace {

// Paths this deep are cut: the inverted tree shows where calls come from, and a few
// callers up usually say it.
constexpr size_t kMaxCallerDepth = 12;
constexpr size_t kDefaultPathsPerCall = 10;

std::string errnos_cell(const SyscallStats& s) {
  std::vector<std::pair<uint64_t, int>> by_count;
  for (auto [err, n] : s.errnos) by_count.push_back({n, err});
  std::sort(by_count.rbegin(), by_count.rend());
  std::string out;
  for (auto [n, err] : by_count) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", errno_text(err), n);
  return out;
}

Table statistics_table(const std::vector<SyscallRow>& rows) {
  Table t({{"calls"},
           {"errors"},
           {"total"},
           {"avg"},
           {"min"},
           {"p50"},
           {"p99"},
           {"max"},
           {"system call", Align::Left},
           {"errors by errno", Align::Left}});
  for (const SyscallRow& r : rows) {
    const SyscallStats& s = r.stats;
    t.add_row({std::to_string(s.calls), std::to_string(s.errors), format_ns(s.total_ns),
               format_ns(s.calls ? s.total_ns / s.calls : 0), format_ns(s.calls ? s.min_ns : 0),
               format_ns(s.percentile(0.5)), format_ns(s.percentile(0.99)), format_ns(s.max_ns), s.name,
               errnos_cell(s)});
  }
  return t;
}

Table functions_table(const ReportContext& ctx, size_t limit) {
  Table t({{"direct"}, {"direct time"}, {"inclusive"}, {"incl. time"}, {"function", Align::Left}});
  std::vector<SyscallFunctionRow> rows = syscall_function_rows(ctx);
  if (limit && rows.size() > limit) rows.resize(limit);
  for (const SyscallFunctionRow& r : rows)
    t.add_row({std::to_string(r.direct), format_ns(r.direct_ns), std::to_string(r.inclusive), format_ns(r.inclusive_ns),
               std::string(ctx.name(r.function))});
  return t;
}

// The inverted tree of one system call's paths: children are callers, heaviest first.
struct Inverted {
  uint64_t calls = 0, errors = 0, total_ns = 0;
  std::map<FunctionId, Inverted> callers;
};

void add_rows(Table& t, const ReportContext& ctx, const Inverted& node, size_t depth, size_t limit) {
  std::vector<std::pair<FunctionId, const Inverted*>> order;
  for (const auto& [f, child] : node.callers) order.push_back({f, &child});
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->total_ns != b.second->total_ns ? a.second->total_ns > b.second->total_ns : a.first < b.first;
  });
  if (depth == 1 && limit && order.size() > limit) order.resize(limit);
  for (const auto& [f, child] : order) {
    t.add_row({std::to_string(child->calls), std::to_string(child->errors), format_ns(child->total_ns),
               std::string(2 * depth, ' ') + std::string(ctx.name(f))});
    add_rows(t, ctx, *child, depth + 1, limit);
  }
}

Table paths_table(const ReportContext& ctx, const SyscallRow& row, size_t limit) {
  Inverted root{row.stats.calls, row.stats.errors, row.stats.total_ns, {}};
  for (const SyscallPath& p : row.paths) {
    Inverted* at = &root;
    const size_t depth = std::min(p.callers.size(), kMaxCallerDepth);
    for (size_t i = 0; i < depth; ++i) {
      at = &at->callers[p.callers[p.callers.size() - 1 - i]];
      at->calls += p.calls, at->errors += p.errors, at->total_ns += p.total_ns;
    }
  }
  Table t({{"calls"}, {"errors"}, {"time"}, {"system call < callers", Align::Left}});
  t.add_row({std::to_string(root.calls), std::to_string(root.errors), format_ns(root.total_ns), row.stats.name});
  add_rows(t, ctx, root, 1, limit);
  return t;
}

}  // namespace

Status render_syscalls(const ReportContext& ctx, std::ostream& out) {
  write_header(out, ctx, "system calls");
  const std::vector<SyscallRow> rows = syscall_rows(ctx);
  if (rows.empty()) {
    out << "No system calls were traced (record with --syscalls).\n";
    return Ok{};
  }
  statistics_table(rows).render(out);
  const size_t limit = ctx.options().limit;
  out << "\nSystem calls by function (direct: made by the function itself; inclusive: also by its callees)\n";
  functions_table(ctx, limit).render(out);
  for (const SyscallRow& row : rows) {
    if (row.paths.empty()) continue;
    out << fmt::format("\nPaths to {} (callers below the call, heaviest first)\n", escape_text(row.stats.name));
    paths_table(ctx, row, limit ? limit : kDefaultPathsPerCall).render(out);
  }
  return Ok{};
}

}  // namespace callprof

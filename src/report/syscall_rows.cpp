#include "report/syscall_rows.h"

#include <algorithm>
#include <cstring>

namespace callprof {

std::string_view syscall_of(const ReportContext& ctx, FunctionId f) {
  if (kind_of(ctx.profile(), f) != FunctionKind::Syscall) return {};
  const std::string_view name = ctx.name(f);
  return name.starts_with(kSyscallLeafPrefix) ? name.substr(kSyscallLeafPrefix.size()) : name;
}

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  return name ? name : "E" + std::to_string(err);
}

namespace {

bool any_matches(const ReportContext& ctx, const std::map<std::string, SyscallRow>& rows) {
  for (const auto& [name, row] : rows)
    if (ctx.matches_text(name)) return true;
  return false;
}

}  // namespace

std::vector<SyscallRow> syscall_rows(const ReportContext& ctx) {
  std::map<std::string, SyscallRow> by_name;
  for (size_t i : ctx.analysis().threads())
    for (const SyscallStats& s : ctx.profile().threads[i].syscalls) {
      SyscallRow& row = by_name[s.name];
      if (row.stats.name.empty()) row.stats.name = s.name, row.stats.number = s.number;
      row.stats.merge(s);
    }
  const CallTree& tree = ctx.tree();
  for (NodeId n = 1; n < tree.size(); ++n) {
    const std::string_view name = syscall_of(ctx, tree.node(n).function);
    if (name.empty()) continue;
    const MetricRow m = tree.base(n);
    std::vector<FunctionId> callers = tree.path_to(tree.node(n).parent);
    by_name[std::string(name)].paths.push_back(
        SyscallPath{std::move(callers), m[Metric::Syscalls], m[Metric::SyscallErrors], m[Metric::SyscallNs]});
  }
  const bool filter = ctx.filtered() && any_matches(ctx, by_name);
  std::vector<SyscallRow> out;
  for (auto& [name, row] : by_name) {
    if (filter && !ctx.matches_text(name)) continue;
    std::sort(row.paths.begin(), row.paths.end(), [](const SyscallPath& a, const SyscallPath& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.calls > b.calls;
    });
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SyscallRow& a, const SyscallRow& b) { return a.stats.total_ns > b.stats.total_ns; });
  return out;
}

std::vector<SyscallFunctionRow> syscall_function_rows(const ReportContext& ctx) {
  std::map<FunctionId, SyscallFunctionRow> rows;
  const CallTree& tree = ctx.tree();
  for (NodeId n = 1; n < tree.size(); ++n) {
    const CallNode& node = tree.node(n);
    if (node.parent == kRootNode || syscall_of(ctx, node.function).empty()) continue;
    SyscallFunctionRow& r = rows[tree.node(node.parent).function];
    r.direct += tree.base(n)[Metric::Syscalls];
    r.direct_ns += tree.base(n)[Metric::SyscallNs];
  }
  for (const FunctionRow& f : ctx.functions()) {
    if (!syscall_of(ctx, f.function).empty() || f.total[Metric::Syscalls] == 0) continue;
    SyscallFunctionRow& r = rows[f.function];
    r.function = f.function;
    r.inclusive = f.total[Metric::Syscalls];
    r.inclusive_ns = f.total[Metric::SyscallNs];
  }
  // As for system calls, the filter narrows the functions only where it matches one.
  const bool filter =
      ctx.filtered() && std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return ctx.matches(r.first); });
  std::vector<SyscallFunctionRow> out;
  for (auto& [f, r] : rows) {
    r.function = f;
    if (!filter || ctx.matches(f)) out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const SyscallFunctionRow& a, const SyscallFunctionRow& b) {
    return a.inclusive_ns != b.inclusive_ns ? a.inclusive_ns > b.inclusive_ns : a.function < b.function;
  });
  return out;
}

}  // namespace callprof

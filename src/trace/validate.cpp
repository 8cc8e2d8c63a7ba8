// Semantic validation of a payload: references between functions, modules and threads, and
// the shape of each columnar calling context tree (rules listed in docs/format.md).
#include "trace/validate.h"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <utility>

#include "model/profile.h"
#include "trace/message_parts.h"

namespace callprof::trace {
namespace {

constexpr double kMaxHookNs = 1e9;

Error invalid(std::string_view where, std::string_view what) {
  return make_error(fmt::format("invalid ({}: {})", where, what));
}

Status validate_columns(const file::PackedCallTree& tree, size_t node_count, std::string_view where) {
  std::array<bool, kMetricCount> seen{};
  for (const file::PackedMetricColumn& column : tree.metrics()) {
    const Metric metric = metric_named(column.name());
    if (metric == Metric::kCount) continue;  // written by a newer callprof: ignored
    const std::string_view name = info(metric).name;
    if (seen[size_t(metric)]) return invalid(where, fmt::format("metric column {} appears twice", name));
    seen[size_t(metric)] = true;
    const std::optional<size_t> values = packed_varint_count(column.values());
    if (!values) return invalid(where, fmt::format("metric column {} ends inside a value", name));
    if (*values != node_count)
      return invalid(where, fmt::format("metric column {} has {} values for {} nodes", name, *values, node_count));
  }
  return Ok{};
}

Status validate_tree(const file::PackedCallTree& tree, size_t function_count, std::string_view where) {
  const size_t node_count = size_t(tree.parent_size());
  if (node_count == 0) return invalid(where, "call tree has no root node");
  if (size_t(tree.function_size()) != node_count)
    return invalid(where, fmt::format("call tree has {} parent entries but {} function entries", node_count,
                                      tree.function_size()));
  if (tree.parent(0) != kNoNode || tree.function(0) != kNoFunction)
    return invalid(where, "node 0 is not a root (its parent and function must be 4294967295)");
  for (size_t i = 1; i < node_count; ++i) {
    const uint32_t parent = tree.parent(int(i)), function = tree.function(int(i));
    if (parent >= i)
      return invalid(where, fmt::format("node {} has parent {}, which is not an earlier node", i, parent));
    if (function >= function_count)
      return invalid(where,
                     fmt::format("node {} has function {}, but there are {} functions", i, function, function_count));
  }
  for (int k = 0; k < tree.inlined_size(); ++k) {
    const uint32_t node = tree.inlined(k);
    if (node == 0 || node >= node_count || (k > 0 && node <= tree.inlined(k - 1)))
      return invalid(where, fmt::format("inlined node {} is not a node after the root in increasing order", node));
  }
  return validate_columns(tree, node_count, where);
}

// Counts must add up, or the percentiles and error shares shown would be nonsense.
Status validate_syscall(const file::Syscall& s, const std::string& thread) {
  const std::string where = fmt::format("{}, system call {}", thread, s.number());
  if (s.errors() > s.calls()) return invalid(where, "more errors than calls");
  if (s.calls() > 0 && s.min_ns() > s.max_ns()) return invalid(where, "shortest call longer than the longest");
  if (s.duration_buckets_size() != s.duration_counts_size())
    return invalid(where, "duration histogram has unequal columns");
  uint64_t in_buckets = 0, in_errnos = 0;
  for (int i = 0; i < s.duration_buckets_size(); ++i) {
    if (s.duration_buckets(i) >= 2048 || (i > 0 && s.duration_buckets(i) <= s.duration_buckets(i - 1)))
      return invalid(where, "duration histogram buckets out of order or range");
    in_buckets += s.duration_counts(i);
  }
  for (const file::ErrnoCount& e : s.errnos()) in_errnos += e.calls();
  if (in_buckets != s.calls() || in_errnos != s.errors())
    return invalid(where, "histogram or errno counts do not add up to the calls and errors");
  return Ok{};
}

// Timeline events name nodes of the thread's tree and carry times a view does arithmetic
// on: bounded counts, existing non-root nodes, non-negative starts, no overflow at the end.
Status validate_timeline(const file::Timeline& t, size_t node_count, std::string_view where) {
  const size_t n = size_t(t.node_size());
  if (size_t(t.start_ns_size()) != n || size_t(t.duration_ns_size()) != n)
    return invalid(where, "timeline has unequal columns");
  if (n > kMaxTimelineEvents)
    return invalid(where, fmt::format("timeline has {} events, more than {}", n, kMaxTimelineEvents));
  for (size_t i = 0; i < n; ++i) {
    const uint32_t node = t.node(int(i));
    if (node == kRootNode || node >= node_count)
      return invalid(where,
                     fmt::format("timeline event {} names node {}, but the tree has {} nodes", i, node, node_count));
    if (t.start_ns(int(i)) < 0) return invalid(where, fmt::format("timeline event {} starts before 0", i));
    if (t.duration_ns(int(i)) > kMaxTimelineDurationNs)
      return invalid(where, fmt::format("timeline event {} lasts {} ns, more than 2^62", i, t.duration_ns(int(i))));
  }
  return Ok{};
}

// NaN, infinite, negative or absurd (over a second per call) constants would turn the
// compensated times into nonsense, so such a file is refused rather than shown.
Status validate_process(const file::Process& process, size_t index, size_t function_count) {
  const std::pair<const char*, double> constants[] = {{"hook_inner_ns", process.hook_inner_ns()},
                                                      {"hook_outer_ns", process.hook_outer_ns()},
                                                      {"excluded_hook_ns", process.excluded_hook_ns()},
                                                      {"hook_caller_ns", process.hook_caller_ns()},
                                                      {"hook_recursive_ns", process.hook_recursive_ns()},
                                                      {"folded_hook_ns", process.folded_hook_ns()},
                                                      {"auto_fold_ns", process.auto_fold_ns()}};
  for (const auto& [name, value] : constants)
    if (!(value >= 0 && value <= kMaxHookNs))
      return invalid(fmt::format("process {} with pid {}", index, process.pid()),
                     fmt::format("{} is {}, not between 0 and {}", name, value, kMaxHookNs));
  for (const file::RemovedHooks& r : process.removed_hooks())
    if (r.function() >= function_count)
      return invalid(
          fmt::format("process {} with pid {}", index, process.pid()),
          fmt::format("removed hooks name function {}, but there are {} functions", r.function(), function_count));
  return Ok{};
}

// Samples and call sites name nodes of the thread's tree (not the root) and locations.
Status validate_code(const file::CodeCosts& c, size_t node_count, size_t location_count, std::string_view where) {
  const int n = c.sample_node_size();
  if (c.sample_location_size() != n || c.samples_size() != n || c.cpu_ns_size() != n ||
      c.site_location_size() != c.site_node_size() ||
      (c.site_calls_size() != 0 && c.site_calls_size() != c.site_node_size()) ||
      c.site_wall_ns_size() != c.site_calls_size())
    return invalid(where, "code costs have unequal columns");
  auto check = [&](uint32_t node, uint32_t location, std::string_view what, int i, bool unknown = false) -> Status {
    if (node == kRootNode || node >= node_count)
      return invalid(where, fmt::format("{} {} names node {}, but the tree has {} nodes", what, i, node, node_count));
    if (location >= location_count && !unknown)
      return invalid(
          where, fmt::format("{} {} names location {}, but there are {} locations", what, i, location, location_count));
    return Ok{};
  };
  for (int i = 0; i < n; ++i)
    if (Status s = check(c.sample_node(i), c.sample_location(i), "instruction sample", i); !s) return s;
  for (int i = 0; i < c.site_node_size(); ++i) {
    const bool unknown = c.site_location(i) == kNoLocation && c.site_calls_size() > 0;  // weighed (code_lines.h)
    if (Status s = check(c.site_node(i), c.site_location(i), "call site", i, unknown); !s) return s;
  }
  return Ok{};
}

}  // namespace

std::string thread_label(size_t index, uint32_t tid) { return fmt::format("thread {} with tid {}", index, tid); }

Metric metric_named(std::string_view name) {
  for (size_t i = 0; i < kMetricCount; ++i)
    if (kMetricInfo[i].name == name) return Metric(i);
  return Metric::kCount;
}

Status validate_thread(const file::Thread& thread, const file::PackedCallTree& tree, size_t index,
                       const TableSizes& tables) {
  const size_t function_count = tables.functions;
  const std::string where = thread_label(index, thread.tid());
  const uint32_t start = thread.start_routine();
  if (start != kNoFunction && start >= function_count)
    return invalid(where,
                   fmt::format("start routine is function {}, but there are {} functions", start, function_count));
  for (int i = 0; i < thread.creator_path_size(); ++i)
    if (thread.creator_path(i) >= function_count)
      return invalid(where, fmt::format("creator path entry {} is function {}, but there are {} functions", i,
                                        thread.creator_path(i), function_count));
  for (const file::Syscall& s : thread.syscalls())
    if (auto st = validate_syscall(s, where); !st) return st;
  if (thread.has_timeline())
    if (auto st = validate_timeline(thread.timeline(), size_t(tree.parent_size()), where); !st) return st;
  if (thread.has_code())
    if (auto st = validate_code(thread.code(), size_t(tree.parent_size()), tables.locations, where); !st) return st;
  return validate_tree(tree, function_count, where);
}

Status validate_head(const file::Profile& head) {
  const size_t module_count = size_t(head.modules_size());
  for (int i = 0; i < head.functions_size(); ++i) {
    const uint32_t module = head.functions(i).module();
    if (module != kNoModule && module >= module_count)
      return invalid(fmt::format("function {}", i),
                     fmt::format("module is {}, but there are {} modules", module, module_count));
  }
  for (int i = 0; i < head.processes_size(); ++i)
    if (Status s = validate_process(head.processes(i), size_t(i), size_t(head.functions_size())); !s) return s;
  for (int i = 0; i < head.locations_size(); ++i) {
    const file::Location& l = head.locations(i);
    if (l.function() >= uint32_t(head.functions_size()) || l.file() >= uint32_t(head.source_files_size()))
      return invalid(fmt::format("location {}", i),
                     fmt::format("names function {} and file {}, but there are {} functions and {} files", l.function(),
                                 l.file(), head.functions_size(), head.source_files_size()));
  }
  return Ok{};
}

Status validate_payload(const file::Profile& payload) {
  if (Status s = validate_head(payload); !s) return s;
  for (int i = 0; i < payload.threads_size(); ++i) {
    // As the reader sees it: the tree's metric values still encoded.
    const std::string bytes = payload.threads(i).SerializeAsString();
    const std::optional<ThreadMessage> thread =
        parse_thread_message(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    if (!thread) return make_error("corrupted (a thread is not a valid message)");
    const TableSizes tables{size_t(payload.functions_size()), size_t(payload.locations_size())};
    if (Status s = validate_thread(thread->thread, thread->tree, size_t(i), tables); !s) return s;
  }
  return Ok{};
}

}  // namespace callprof::trace

// The JSON document (schema: docs/json.md), one array element per line. Small sections
// are built with nlohmann::json; the tree and edges come from json_stream.h.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "graph/folded.h"
#include "graph/modules.h"
#include "graph/node_filter.h"
#include "graph/threads.h"
#include "query/hook_cost.h"
#include "report/header.h"
#include "report/json_stream.h"
#include "report/syscall_rows.h"
#include "report/views.h"
#include "util/escape.h"

namespace callprof {
namespace {

// Keys keep the order written here, which is the order docs/json.md lists them in.
using json = nlohmann::ordered_json;

// 2: times are compensated for the hook overhead unless --raw (`compensated` says which).
// 3: offcpu_ns and total_offcpu_ns are blocked time only; waiting for a CPU is preempted_ns.
constexpr int kSchemaVersion = 3;

// Names come from the profiled binary and need not be valid UTF-8: replace, never throw.
std::string dump(const json& j) { return inert_json(j.dump(-1, ' ', false, json::error_handler_t::replace)); }

json opt_ns(uint64_t v) { return v == Metrics::kUnset ? json(nullptr) : json(v); }
json opt_name(const ReportContext& ctx, FunctionId f) {
  return f == kNoFunction ? json(nullptr) : json(ctx.analysis().full_name(f));
}

void write_array(std::ostream& out, const char* key, const std::vector<std::string>& items) {
  out << '"' << key << "\": [";
  for (size_t i = 0; i < items.size(); ++i) out << (i ? ",\n" : "\n") << items[i];
  out << (items.empty() ? "]" : "\n]");
}

void write_array(std::ostream& out, const char* key, const std::vector<json>& items) {
  std::vector<std::string> dumped;
  for (const json& j : items) dumped.push_back(dump(j));
  write_array(out, key, dumped);
}

json exact_facts(const ExactFacts& x) {
  return {{"offcpu", x.offcpu},
          {"alloc", x.alloc},
          {"faults", x.faults},
          {"libcalls", x.libcalls},
          {"ordered_clock", x.ordered_clock},
          {"auto_fold", x.auto_fold},
          {"include", x.include},
          {"exclude", x.exclude},
          {"include_module", x.include_module},
          {"exclude_module", x.exclude_module},
          {"checkpoint", x.checkpoint},
          {"max_depth", x.max_depth},
          {"min_duration", x.min_duration},
          {"max_nodes", x.max_nodes},
          {"unmatched_exits", x.unmatched_exits},
          {"calibration", x.calibration},
          {"calibration_change_at_exit",
           x.calibration_change_at_exit ? json(*x.calibration_change_at_exit) : json(nullptr)},
          {"attached", x.attached},
          {"frames_open_at_attach", x.frames_open_at_attach},
          {"threads_open_at_attach", x.threads_open_at_attach},
          {"threads_without_hooks", x.threads_without_hooks}};
}

json sampling_facts(const SamplingFacts& s) {
  return {{"event", s.event},
          {"frequency_hz", s.frequency_hz},
          {"unwind", unwinding_name(s.unwind)},
          {"unwind_reason", s.unwind_reason},
          {"samples", s.samples},
          {"off_cpu_samples", s.off_cpu_samples},
          {"incomplete_stacks", s.incomplete_stacks},
          {"lost_records", s.lost_records},
          {"lost_samples", s.lost_samples},
          {"truncated_stacks", s.truncated_stacks},
          {"inlined_frames", s.inlined_frames},
          {"runtime_samples", s.runtime_samples},
          {"unplaced_samples", s.unplaced_samples}};
}

json syscall_facts(const SyscallFacts& s) {
  return {{"selection", s.selection},
          {"stacks", s.stacks},
          {"events", s.events},
          {"lost_events", s.lost_events},
          {"stack_failures", s.stack_failures},
          {"unrecorded", s.unrecorded},
          {"unpaired_exits", s.unpaired_exits},
          {"exact_callers", s.exact_callers},
          {"exact_callers_unplaced", s.exact_callers_unplaced}};
}

json probe_facts(const ProbeFacts& s) {
  json stopped = json::array();
  for (const StoppedProbe& x : s.stopped)
    stopped.push_back(
        {{"function", x.function}, {"at_ns", x.at_ns}, {"calls", x.calls}, {"added_percent", x.added_percent}});
  return {{"functions", s.functions},
          {"modules", s.modules},
          {"probed", s.probed},
          {"sites", s.sites},
          {"refused_sites", s.refused_sites},
          {"entries", s.entries},
          {"exits", s.exits},
          {"unwound", s.unwound},
          {"unfinished", s.unfinished},
          {"unmatched_exits", s.unmatched_exits},
          {"cost_per_hit_ns", s.cost_per_hit_ns},
          {"lost", s.lost},
          {"estimated_distortion_ns", (s.entries + s.exits) * s.cost_per_hit_ns},
          {"budget_percent", s.budget_percent},
          {"stopped", stopped},
          {"cut", s.cut},
          {"unmeasurable_calls", s.unmeasurable_calls},
          {"unmeasurable", s.unmeasurable},
          {"truncated_calls", s.truncated_calls}};
}

template <typename T>
json optional_facts(const std::optional<T>& facts, json (*to_json)(const T&)) {
  return facts ? to_json(*facts) : json(nullptr);
}

json metadata(const Metadata& m) {
  return {{"command", m.command},
          {"mode", m.mode.text()},
          {"hostname", m.hostname},
          {"clock", m.clock},
          {"start_realtime_ns", m.start_realtime_ns},
          {"duration_ns", m.duration_ns},
          {"callprof_version", m.callprof_version},
          {"snapshot", m.snapshot},
          {"exact", optional_facts(m.exact, exact_facts)},
          {"sampling", optional_facts(m.sampling, sampling_facts)},
          {"syscalls", optional_facts(m.syscalls, syscall_facts)},
          {"probes", optional_facts(m.probes, probe_facts)},
          {"extra", m.extra},
          {"warnings", m.warnings}};
}

json summary(const ReportContext& ctx) {
  const TreeStats& s = ctx.stats();
  json deepest = nullptr;
  if (s.deepest_recursion_function != kNoFunction)
    deepest = {{"function", ctx.analysis().full_name(s.deepest_recursion_function)},
               {"level", s.deepest_recursion_level}};
  return {{"nodes", s.nodes},
          {"edges", s.edges},
          {"functions", s.functions},
          {"calls", s.calls},
          {"recursive_calls", s.recursive_calls},
          {"indirect_calls", s.indirect_calls},
          {"max_depth", s.max_depth},
          {"deepest_recursion", deepest},
          {"total_ns", ctx.grand_total_ns()},
          {"sampled", s.has_samples}};
}

json function_json(const ReportContext& ctx, const FunctionRow& r) {
  const Profile& p = ctx.profile();
  const Function* fn = r.function < p.functions.size() ? &p.functions[r.function] : nullptr;
  const bool cpu_measured = ctx.cpu_measured();
  const bool has_module = fn && fn->module < p.modules.size();
  json j = {{"id", r.function},
            {"name", ctx.analysis().full_name(r.function)},
            {"short_name", ctx.analysis().short_name(r.function)},
            {"kind", function_kind_name(ctx.analysis().kind(r.function))},
            {"module", has_module ? json(p.modules[fn->module].path) : json(nullptr)},
            {"file", fn && !fn->file.empty() ? json(fn->file) : json(nullptr)},
            {"line", fn && fn->line ? json(fn->line) : json(nullptr)},
            {"calls", r.calls},
            {"recursive_calls", r.recursive_calls},
            {"indirect_calls", r.indirect_calls},
            {"self_ns", r.self_ns},
            {"total_ns", r.total_ns},
            {"min_self_ns", opt_ns(r.min_self_ns)},
            {"max_self_ns", opt_ns(r.max_self_ns)},
            {"cpu_ns", cpu_measured ? json(r.cpu_ns) : json(nullptr)},
            {"offcpu_ns", cpu_measured ? json(r.offcpu_ns) : json(nullptr)}};
  for (const auto& [key, value] : metric_fields(ctx, r.self, r.total, false))
    j[key] = value ? json(*value) : json(nullptr);
  if (ctx.stats().has_samples) {
    j["samples"] = r.self_samples;
    j["total_samples"] = r.total_samples;
  }
  return j;
}

const char* offcpu_state(Thread::OffCpu s) {
  switch (s) {
    case Thread::OffCpu::Measured:
      return "measured";
    case Thread::OffCpu::Unavailable:
      return "unavailable";
    case Thread::OffCpu::Off:
      break;
  }
  return "off";
}

std::vector<json> threads(const ReportContext& ctx) {
  const Profile& p = ctx.profile();
  const std::vector<ThreadTotals>& totals = ctx.analysis().thread_totals();
  std::vector<json> out;
  for (size_t i = 0; i < p.threads.size(); ++i) {
    const Thread& t = p.threads[i];
    json path = json::array();
    for (FunctionId f : t.creator_path) path.push_back(ctx.analysis().full_name(f));
    const bool measured =
        t.offcpu == Thread::OffCpu::Measured || totals[i].cpu_ns || totals[i].offcpu_ns || totals[i].preempted_ns;
    out.push_back({{"tid", t.tid},
                   {"pid", t.pid},
                   {"host", t.host.empty() ? json(nullptr) : json(t.host)},
                   {"name", t.name},
                   {"creator_tid", t.creator_tid ? json(t.creator_tid) : json(nullptr)},
                   {"creator_path", path},
                   {"start_routine", opt_name(ctx, t.start_routine)},
                   {"start_ns", t.start_ns},
                   {"end_ns", t.end_ns},
                   {"finished", t.finished},
                   {"dropped_calls", t.dropped_calls},
                   {"depth_limited_calls", t.depth_limited_calls},
                   {"short_calls", t.short_calls},
                   {"lost_events", t.lost_events},
                   {"prunes", t.prunes},
                   {"folded_functions", ctx.analysis().thread_folded_counts()[i]},
                   {"timeline_events", t.timeline.events.size()},
                   {"timeline_dropped", t.timeline.dropped},
                   {"offcpu", offcpu_state(t.offcpu)},
                   {"calls", totals[i].calls},
                   {"total_ns", totals[i].total_ns},
                   {"cpu_ns", measured ? json(totals[i].cpu_ns) : json(nullptr)},
                   {"offcpu_ns", measured ? json(totals[i].offcpu_ns) : json(nullptr)},
                   {"preempted_ns", measured ? json(totals[i].preempted_ns) : json(nullptr)}});
  }
  return out;
}

// The per-thread and per-process breakdowns: one compact row per function. Every number
// in them adds up across threads (a thread's outermost instances of a function are its
// own), so a process's rows are its threads' rows summed, with no merged tree.
struct FunctionSums {
  uint64_t calls = 0, self_ns = 0, total_ns = 0, cpu_ns = 0, offcpu_ns = 0, preempted_ns = 0, samples = 0;
  void add(const FunctionRow& r) {
    calls += r.calls, self_ns += r.self_ns, total_ns += r.total_ns;
    cpu_ns += r.cpu_ns, offcpu_ns += r.offcpu_ns, preempted_ns += r.preempted_ns, samples += r.self_samples;
  }
  void add(const FunctionSums& r) {
    calls += r.calls, self_ns += r.self_ns, total_ns += r.total_ns;
    cpu_ns += r.cpu_ns, offcpu_ns += r.offcpu_ns, preempted_ns += r.preempted_ns, samples += r.samples;
  }
};
using Breakdown = std::map<FunctionId, FunctionSums>;

// Each selected thread's breakdown (the function rows of its own tree, from the analysis).
std::vector<Breakdown> thread_breakdowns(const ReportContext& ctx) {
  std::vector<Breakdown> out(ctx.analysis().threads().size());
  for (size_t k = 0; k < out.size(); ++k)
    for (const FunctionRow& r : ctx.analysis().thread_rows(k))
      if (ctx.matches(r.function)) out[k][r.function].add(r);
  return out;
}

std::vector<json> rows_json(const ReportContext& ctx, const Breakdown& rows) {
  std::vector<json> out;
  const bool cpu = ctx.cpu_measured(), sampled = ctx.has_samples();
  for (const auto& [function, r] : rows) {
    json j = {{"id", function}, {"calls", r.calls}, {"self_ns", r.self_ns}, {"total_ns", r.total_ns}};
    if (cpu) {
      j["cpu_ns"] = r.cpu_ns;
      j["offcpu_ns"] = r.offcpu_ns;
      j["preempted_ns"] = r.preempted_ns;
    }
    if (sampled) j["samples"] = r.samples;
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<json> by_thread(const ReportContext& ctx, const std::vector<Breakdown>& rows) {
  std::vector<json> out;
  for (size_t k = 0; k < rows.size(); ++k) {
    const Thread& t = ctx.profile().threads[ctx.analysis().threads()[k]];
    out.push_back({{"tid", t.tid}, {"pid", t.pid}, {"functions", rows_json(ctx, rows[k])}});
  }
  return out;
}

std::vector<json> by_process(const ReportContext& ctx, const std::vector<Breakdown>& rows) {
  std::map<uint32_t, Breakdown> processes;  // by pid: its selected threads summed
  for (size_t k = 0; k < rows.size(); ++k) {
    Breakdown& sum = processes[ctx.profile().threads[ctx.analysis().threads()[k]].pid];
    for (const auto& [function, r] : rows[k]) sum[function].add(r);
  }
  std::vector<json> out;
  for (const auto& [pid, sum] : processes) out.push_back({{"pid", pid}, {"functions", rows_json(ctx, sum)}});
  return out;
}

// The folded functions a process removed for the whole process, in order, and when; none
// where the system refused writable code (every call was counted there).
json removed_hooks(const Profile& p, const Process& pr) {
  json out = json::array();
  if (pr.rewrite_refused_errno == 0)
    for (const Process::RemovedHooks& r : pr.removed_hooks)
      out.push_back({{"function_id", r.function},
                     {"name", r.function < p.functions.size() ? json(p.functions[r.function].name) : json(nullptr)},
                     {"at_ns", r.at_ns},
                     {"inlined_copies_uncounted", r.inlined_copies_uncounted}});
  return out;
}

std::vector<json> processes(const Profile& p) {
  std::vector<json> out;
  for (const Process& pr : p.processes)
    out.push_back({{"pid", pr.pid},
                   {"host", pr.host.empty() ? json(nullptr) : json(pr.host)},
                   {"ppid", pr.ppid ? json(pr.ppid) : json(nullptr)},
                   {"image", pr.image},
                   {"command", pr.command},
                   {"start_ns", pr.start_ns},
                   {"end_ns", pr.end_ns},
                   {"death_signal", pr.death_signal ? json(pr.death_signal) : json(nullptr)},
                   {"complete", pr.complete},
                   {"hook_inner_ns", pr.hook_inner_ns},
                   {"hook_outer_ns", pr.hook_outer_ns},
                   {"excluded_hook_ns", pr.excluded_hook_ns},
                   {"hook_caller_ns", pr.hook_caller_ns},
                   {"hook_recursive_ns", pr.hook_recursive_ns},
                   {"folded_hook_ns", pr.folded_hook_ns},
                   {"hook_compiler", pr.hook_compiler.empty() ? json(nullptr) : json(pr.hook_compiler)},
                   {"auto_fold_ns", pr.auto_fold_ns},
                   {"hook_removal", pr.hook_removal},
                   {"rewritten_sites", pr.rewritten_sites},
                   {"rewrite_refused_errno", pr.rewrite_refused_errno},
                   {"counting_sites", pr.counting_sites},
                   {"uncounted_sites", pr.uncounted_sites},
                   {"counts_unhooked_calls", pr.counts_unhooked_calls},
                   {"removed_hooks", removed_hooks(p, pr)}});
  return out;
}

// docs/json.md "syscall": statistics merged over the selected threads, and every path.
std::vector<json> syscalls(const ReportContext& ctx) {
  std::vector<json> out;
  for (const SyscallRow& row : syscall_rows(ctx)) {
    const SyscallStats& s = row.stats;
    json errnos = json::object();
    for (auto [err, n] : s.errnos) errnos[errno_text(err)] = n;
    json paths = json::array();
    for (const SyscallPath& p : row.paths) {
      json callers = json::array();
      for (FunctionId f : p.callers) callers.push_back(opt_name(ctx, f));
      paths.push_back(
          {{"path", std::move(callers)}, {"calls", p.calls}, {"errors", p.errors}, {"total_ns", p.total_ns}});
    }
    out.push_back({{"name", s.name},
                   {"number", s.number},
                   {"calls", s.calls},
                   {"errors", s.errors},
                   {"errnos", std::move(errnos)},
                   {"total_ns", s.total_ns},
                   {"avg_ns", s.calls ? s.total_ns / s.calls : 0},
                   {"min_ns", s.calls ? s.min_ns : 0},
                   {"max_ns", s.max_ns},
                   {"p50_ns", s.percentile(0.5)},
                   {"p99_ns", s.percentile(0.99)},
                   {"paths", std::move(paths)}});
  }
  return out;
}

std::vector<json> modules(const ReportContext& ctx) {
  const Profile& p = ctx.profile();
  std::vector<ModuleRow> by_id(p.modules.size());
  for (const ModuleRow& r : module_rows(p, ctx.functions()))
    if (r.module != kNoModule) by_id[r.module] = r;
  std::vector<json> out;
  for (ModuleId m = 0; m < p.modules.size(); ++m) {
    const ModuleRow& r = by_id[m];
    out.push_back({{"id", m},
                   {"path", p.modules[m].path},
                   {"build_id", p.modules[m].build_id.empty() ? json(nullptr) : json(p.modules[m].build_id)},
                   {"calls", r.calls},
                   {"self_ns", r.self_ns},
                   {"functions", r.functions}});
  }
  return out;
}

// `"key": [v0,v1,...]` with one value per node; `null` instead of the array when absent.
template <typename Value>
void write_column(std::ostream& out, std::string_view key, size_t count, bool present, Value value) {
  fmt::memory_buffer buf;
  fmt::format_to(std::back_inserter(buf), ",\n\"{}\": ", key);
  if (!present) {
    buf.append(std::string_view("null"));
  } else {
    buf.push_back('[');
    for (size_t i = 0; i < count; ++i) {
      if (i) buf.push_back(',');
      fmt::format_to(std::back_inserter(buf), "{}", value(i));
    }
    buf.push_back(']');
  }
  out.write(buf.data(), std::streamsize(buf.size()));
}

// `"nodes": {...}`: the tree as columns (docs/json.md, "nodes"), one key per line.
void write_node_columns(std::ostream& out, const ReportContext& ctx, const MetricTable& totals) {
  const NodeOrder order = node_order(ctx);
  const CallTree& tree = ctx.tree();
  const std::vector<uint32_t>& level = ctx.levels();
  const size_t n = order.ids.size();
  auto base = [&](Metric m) { return [&, m](size_t i) { return tree.base(order.ids[i])[m]; }; };
  auto cum = [&](Metric m) { return [&, m](size_t i) { return totals[order.ids[i]][m]; }; };
  const bool cpu = ctx.cpu_measured(), sampled = ctx.has_samples();
  out << "\"nodes\": {\n\"count\": " << n;
  write_column(out, "parent", n, true, [&](size_t i) { return order.parents[i]; });
  write_column(out, "function_id", n, true, [&](size_t i) { return tree.node(order.ids[i]).function; });
  write_column(out, "calls", n, true, base(Metric::Calls));
  write_column(out, "self_ns", n, true, base(Metric::WallNs));
  write_column(out, "total_ns", n, true, cum(Metric::WallNs));
  write_column(out, "recursion_level", n, true, [&](size_t i) { return level[order.ids[i]]; });
  write_column(out, "cpu_ns", n, cpu, base(Metric::CpuNs));
  write_column(out, "offcpu_ns", n, cpu, base(Metric::OffCpuNs));
  write_column(out, "preempted_ns", n, cpu, base(Metric::PreemptedNs));
  write_column(out, "samples", n, sampled, base(Metric::Samples));
  write_column(out, "total_samples", n, sampled, cum(Metric::Samples));
  write_column(out, "inlined", n, ctx.stats().has_inlined, [&](size_t i) { return tree.node(order.ids[i]).inlined; });
  out << "\n}";
}

// `"edges": {...}`: the edges the filter keeps as columns (docs/json.md, "Columns layout").
void write_edge_columns(std::ostream& out, const ReportContext& ctx) {
  std::vector<const EdgeRow*> rows;
  for (const EdgeRow& e : ctx.edges())
    if (ctx.matches(e.caller) || ctx.matches(e.callee)) rows.push_back(&e);
  const size_t n = rows.size();
  const bool cpu = ctx.cpu_measured();
  out << "\"edges\": {\n\"count\": " << n;
  write_column(out, "caller_id", n, true,
               [&](size_t i) { return rows[i]->caller == kNoFunction ? int64_t(-1) : int64_t(rows[i]->caller); });
  write_column(out, "callee_id", n, true, [&](size_t i) { return rows[i]->callee; });
  write_column(out, "calls", n, true, [&](size_t i) { return rows[i]->calls; });
  write_column(out, "recursive_calls", n, true, [&](size_t i) { return rows[i]->recursive_calls; });
  write_column(out, "self_ns", n, true, [&](size_t i) { return rows[i]->self_ns; });
  write_column(out, "total_ns", n, true, [&](size_t i) { return rows[i]->total_ns; });
  write_column(out, "cpu_ns", n, cpu, [&](size_t i) { return rows[i]->self[Metric::CpuNs]; });
  write_column(out, "offcpu_ns", n, cpu, [&](size_t i) { return rows[i]->self[Metric::OffCpuNs]; });
  write_column(out, "preempted_ns", n, cpu, [&](size_t i) { return rows[i]->self[Metric::PreemptedNs]; });
  out << "\n}";
}

}  // namespace

Status render_json(const ReportContext& ctx, std::ostream& out) {
  const ReportOptions& o = ctx.options();
  const JsonNames names(ctx);
  const QueryOptions& q = o.query;
  auto or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  json selection = {{"thread", q.tid ? json(*q.tid) : json(nullptr)},
                    {"pid", q.pid ? json(*q.pid) : json(nullptr)},
                    {"filter", or_null(o.filter)},
                    {"focus", or_null(q.focus)},
                    {"hide", or_null(q.hide)},
                    {"raw", q.raw},
                    {"threads", thread_merge_name(q.merge)},
                    {"names", name_style_name(q.names)}};
  out << "{\n\"schema_version\": " << kSchemaVersion << ",\n";
  out << "\"compensated\": " << (ctx.compensated() ? "true" : "false") << ",\n";
  const CompensationStats& c = ctx.compensation();
  out << "\"compensation\": "
      << dump(json{{"nodes", c.nodes}, {"limited", c.limited}, {"unremoved_ns", uint64_t(c.unremoved_ns)}}) << ",\n";
  json folded = json::array();
  for (const FoldedFunction& f : ctx.analysis().folded()) {
    folded.push_back({{"name", ctx.analysis().full_name(f.function)},
                      {"calls", f.calls},
                      {"folded_calls", f.folded_calls},
                      {"hooks_removed_at_ns", f.hooks_removed_at_ns ? json(*f.hooks_removed_at_ns) : json(nullptr)},
                      {"counted_after_removal", !f.hooks_removed_at_ns       ? json(nullptr)
                                                : !f.counted_after_removal   ? json("none")
                                                : f.inlined_copies_uncounted ? json("called")
                                                                             : json("all")}});
  }
  out << "\"auto_fold\": " << dump(json{{"functions", folded}}) << ",\n";
  if (const HookCostEstimate e = estimate_hook_cost(ctx.analysis()); e.hook_ns > 0)
    out << "\"hook_cost\": "
        << dump(json{{"hooked_calls", e.hooked_calls},
                     {"hook_ns", uint64_t(e.hook_ns)},
                     {"recorded_ns", uint64_t(e.recorded_ns)},
                     {"auto_fold_all", {{"functions", e.small_leaves}, {"calls", e.small_leaf_calls}}},
                     {"auto_fold_wrappers",
                      {{"functions", e.small_leaves + e.thin_wrappers},
                       {"calls", e.small_leaf_calls + e.thin_wrapper_calls}}}})
        << ",\n";
  if (const auto disagreements = exact_sample_disagreements(ctx); !disagreements.empty()) {
    json d = json::array();
    for (const SampleDisagreement& x : disagreements)
      d.push_back({{"name", ctx.analysis().full_name(x.function)},
                   {"exact_cpu_ns", x.exact_ns},
                   {"sampled_cpu_ns", x.sampled_ns},
                   {"error_ns", x.error_ns}});
    out << "\"sample_disagreements\": " << dump(d) << ",\n";
  }
  out << "\"selection\": " << dump(selection) << ",\n";
  out << "\"metadata\": " << dump(metadata(ctx.profile().meta)) << ",\n";
  out << "\"summary\": " << dump(summary(ctx)) << ",\n";
  std::vector<json> functions;
  for (const FunctionRow& r : ctx.functions())
    if (ctx.matches(r.function)) functions.push_back(function_json(ctx, r));
  write_array(out, "functions", functions);
  out << ",\n";
  if (o.json_layout == JsonLayout::Columns) {
    write_edge_columns(out, ctx);
    out << ",\n";
    write_node_columns(out, ctx, json_node_totals(ctx));
  } else {
    std::vector<std::string> edges;
    for (const EdgeRow& e : ctx.edges())
      if (ctx.matches(e.caller) || ctx.matches(e.callee)) edges.push_back(edge_json(ctx, e, names));
    write_array(out, "edges", edges);
    out << ",\n";
    if (o.json_layout == JsonLayout::Flat)
      write_flat_nodes_json(out, ctx, names, json_node_totals(ctx));
    else
      write_tree_json(out, ctx, names, json_node_totals(ctx));
  }
  out << ",\n";
  write_array(out, "threads", threads(ctx));
  out << ",\n";
  write_array(out, "processes", processes(ctx.profile()));
  out << ",\n";
  write_array(out, "modules", modules(ctx));
  out << ",\n";
  write_array(out, "syscalls", syscalls(ctx));
  out << ",\n";
  const std::vector<Breakdown> breakdowns = thread_breakdowns(ctx);
  write_array(out, "by_process", by_process(ctx, breakdowns));
  out << ",\n";
  write_array(out, "by_thread", by_thread(ctx, breakdowns));
  out << "\n}\n";
  return Ok{};
}

}  // namespace callprof

// The column catalog and the default column sets of the function and node tables.
#include "report/columns.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "report/text.h"

namespace callprof {
namespace {

enum class Unit { Count, Ns, Bytes };

std::string show(uint64_t v, Unit u) {
  switch (u) {
    case Unit::Ns:
      return format_ns(v);
    case Unit::Bytes:
      return format_bytes(v);
    case Unit::Count:
      break;
  }
  return std::to_string(v);
}

template <Metric M>
uint64_t self_of(MetricView s, MetricView) {
  return s[M];
}
template <Metric M>
uint64_t total_of(MetricView, MetricView t) {
  return t[M];
}
template <Metric M, Unit U>
std::string self_cell(MetricView s, MetricView, uint64_t) {
  return show(s[M], U);
}
template <Metric M, Unit U>
std::string total_cell(MetricView, MetricView t, uint64_t) {
  return show(t[M], U);
}

uint64_t per_call(uint64_t v, uint64_t calls) { return calls ? v / calls : 0; }
// Max is only meaningful where some single call was timed (min is set).
uint64_t max_or_unset(MetricView s) { return s.has_min(Metric::MinWallNs) ? s[Metric::MaxWallNs] : Metrics::kUnset; }
uint64_t or_zero(uint64_t v) { return v == Metrics::kUnset ? 0 : v; }

#define CALLPROF_PAIR(key, title, metric, unit, needs)                                            \
  MetricColumnDef{key, title, self_of<metric>, self_cell<metric, unit>, needs}, MetricColumnDef { \
    key "total", "total " title, total_of<metric>, total_cell<metric, unit>, needs, false, metric \
  }

const std::vector<MetricColumnDef> kColumns = {
    {"calls", "calls", self_of<Metric::Calls>, self_cell<Metric::Calls, Unit::Count>, Needs::Calls},
    {"samples", "samples", self_of<Metric::Samples>, self_cell<Metric::Samples, Unit::Count>, Needs::Samples},
    {"self", "self", self_of<Metric::WallNs>, self_cell<Metric::WallNs, Unit::Ns>},
    {"self%", "self%", self_of<Metric::WallNs>,
     [](MetricView s, MetricView, uint64_t g) { return format_pct(s[Metric::WallNs], g); }},
    {"sum%", "sum%", self_of<Metric::WallNs>, nullptr, Needs::Nothing, true},
    {"total", "total", total_of<Metric::WallNs>, total_cell<Metric::WallNs, Unit::Ns>, Needs::Nothing, false,
     Metric::WallNs},
    {"total%", "total%", total_of<Metric::WallNs>,
     [](MetricView, MetricView t, uint64_t g) { return format_pct(t[Metric::WallNs], g); }, Needs::Nothing, false,
     Metric::WallNs},
    {"avg", "avg self", [](MetricView s, MetricView) { return per_call(s[Metric::WallNs], s[Metric::Calls]); },
     [](MetricView s, MetricView, uint64_t) {
       return s[Metric::Calls] ? format_ns(s[Metric::WallNs] / s[Metric::Calls]) : std::string("-");
     },
     Needs::Calls},
    {"avgtotal", "avg total", [](MetricView s, MetricView t) { return per_call(t[Metric::WallNs], s[Metric::Calls]); },
     [](MetricView s, MetricView t, uint64_t) {
       return s[Metric::Calls] ? format_ns(t[Metric::WallNs] / s[Metric::Calls]) : std::string("-");
     },
     Needs::Calls, false, Metric::WallNs},
    {"min", "min self", [](MetricView s, MetricView) { return or_zero(s[Metric::MinWallNs]); },
     [](MetricView s, MetricView, uint64_t) { return format_ns(s[Metric::MinWallNs]); }, Needs::MinMax},
    {"max", "max self", [](MetricView s, MetricView) { return or_zero(max_or_unset(s)); },
     [](MetricView s, MetricView, uint64_t) { return format_ns(max_or_unset(s)); }, Needs::MinMax},
    CALLPROF_PAIR("cpu", "cpu", Metric::CpuNs, Unit::Ns, Needs::Cpu),
    CALLPROF_PAIR("offcpu", "off-cpu", Metric::OffCpuNs, Unit::Ns, Needs::Cpu),
    CALLPROF_PAIR("preempted", "preempted", Metric::PreemptedNs, Unit::Ns, Needs::Cpu),
    CALLPROF_PAIR("switches", "switches", Metric::Switches, Unit::Count, Needs::Events),
    CALLPROF_PAIR("faults", "faults", Metric::PageFaults, Unit::Count, Needs::Faults),
    CALLPROF_PAIR("allocs", "allocs", Metric::AllocCalls, Unit::Count, Needs::Allocs),
    CALLPROF_PAIR("allocbytes", "alloc bytes", Metric::AllocBytes, Unit::Bytes, Needs::Allocs),
    CALLPROF_PAIR("frees", "frees", Metric::FreeCalls, Unit::Count, Needs::Allocs),
    {"samplestotal", "total samples", total_of<Metric::Samples>, total_cell<Metric::Samples, Unit::Count>,
     Needs::Samples, false, Metric::Samples},
    CALLPROF_PAIR("syscalls", "syscalls", Metric::Syscalls, Unit::Count, Needs::Syscalls),
    CALLPROF_PAIR("syscalltime", "syscall time", Metric::SyscallNs, Unit::Ns, Needs::Syscalls),
    CALLPROF_PAIR("syscallerrors", "syscall errors", Metric::SyscallErrors, Unit::Count, Needs::Syscalls),
    {"indirect", "indirect", self_of<Metric::IndirectCalls>, self_cell<Metric::IndirectCalls, Unit::Count>,
     Needs::Calls},
};

#undef CALLPROF_PAIR

using Keys = std::vector<std::string_view>;

// The core of each table: what a person reads first, per profile kind.
Keys base_keys(bool sampled, TableKind kind) {
  switch (kind) {
    case TableKind::Flat:
      return sampled ? Keys{"samples", "self", "self%", "sum%", "total", "total%"}
                     : Keys{"calls", "self", "self%", "sum%", "total", "total%", "avg"};
    case TableKind::Tree:
      return sampled ? Keys{"samples", "self", "total", "total%"} : Keys{"calls", "self", "total", "total%"};
    case TableKind::Callers:
      break;
  }
  return {"self", "total"};
}

Keys default_keys(bool sampled, bool cpu, bool crowded, const std::array<bool, kMetricCount>& present, TableKind kind) {
  Keys keys = base_keys(sampled, kind);
  // Samples inside exact mode: beside the calls.
  if (!sampled && present[size_t(Metric::Samples)] && kind != TableKind::Callers)
    keys.insert(keys.begin() + 1, "samples");
  auto add = [&](std::initializer_list<std::string_view> more) { keys.insert(keys.end(), more); };
  if (cpu) add({"cpu", "offcpu"});
  // Waiting for a CPU is neither running nor blocking: its own column where it mattered.
  if (cpu && crowded) add({"preempted"});
  // Counts of events rather than amounts: self only, to keep the default tables readable.
  if (present[size_t(Metric::PageFaults)]) add({"faults"});
  if (present[size_t(Metric::Switches)]) add({"switches"});
  if (present[size_t(Metric::AllocCalls)] || present[size_t(Metric::AllocBytes)]) add({"allocs", "allocbytes"});
  // Inclusive: a function's own system calls are its `[syscall]` children (view syscalls).
  if (present[size_t(Metric::Syscalls)] && kind != TableKind::Callers) add({"syscallstotal", "syscalltimetotal"});
  return keys;
}

Keys default_keys(const ReportContext& ctx, TableKind kind) {
  return default_keys(ctx.sampled(), ctx.cpu_measured(), ctx.stats().crowded, ctx.stats().present, kind);
}

// Every key a default set can hold, whatever the profile.
Keys every_default_key() {
  std::array<bool, kMetricCount> present;
  present.fill(true);
  Keys keys;
  for (bool sampled : {false, true})
    for (TableKind kind : {TableKind::Flat, TableKind::Tree, TableKind::Callers})
      for (std::string_view key : default_keys(sampled, true, true, present, kind)) keys.push_back(key);
  return keys;
}

// The metrics that only columns read: no analysis step, header or other part of a text
// view does. Each with the columns that read it (a unit test checks the lists against the
// columns themselves, and that views render the same without these metrics).
struct ColumnOnlyMetric {
  Metric metric;
  Keys columns;
};
const std::vector<ColumnOnlyMetric> kColumnOnlyMetrics = {
    {Metric::MinWallNs, {"min", "max"}},  // max is shown only where min says single calls were timed
    {Metric::MaxWallNs, {"max"}},
};

Keys split_keys(std::string_view spec) {
  Keys keys;
  for (size_t at = 0; at <= spec.size();) {
    const size_t comma = std::min(spec.find(',', at), spec.size());
    keys.push_back(spec.substr(at, comma - at));
    at = comma + 1;
  }
  return keys;
}

bool is_adjustment(std::string_view key) { return !key.empty() && (key[0] == '+' || key[0] == '-'); }

// "+a,-b": the default set with a appended and b removed.
Result<Keys> adjusted_keys(Keys keys, const Keys& changes) {
  for (std::string_view change : changes) {
    const std::string_view key = change.substr(1);
    auto at = std::find(keys.begin(), keys.end(), key);
    if (change[0] == '-' && at != keys.end()) keys.erase(at);
    if (change[0] == '+' && at == keys.end()) keys.push_back(key);
  }
  return keys;
}

}  // namespace

const std::vector<MetricColumnDef>& metric_columns() { return kColumns; }

const MetricColumnDef* find_metric_column(std::string_view key) {
  for (const MetricColumnDef& c : kColumns)
    if (c.key == key) return &c;
  return nullptr;
}

std::string metric_column_keys() {
  std::string keys;
  for (const MetricColumnDef& c : kColumns) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", c.key);
  return keys;
}

// What exact mode says it measured; a merged or older profile may only show it in its data.
bool exact_fact(const ReportContext& ctx, bool ExactFacts::*fact) {
  const auto& exact = ctx.profile().meta.exact;
  return exact && (*exact).*fact;
}

bool column_known(const ReportContext& ctx, const MetricColumnDef& c) {
  switch (c.needs) {
    case Needs::Nothing:
      return true;
    case Needs::Calls:
      return !ctx.sampled();
    case Needs::Cpu:
      return ctx.cpu_measured();
    case Needs::Samples:
      return ctx.has_samples();
    case Needs::MinMax:
      return ctx.stats().has_min_max;
    case Needs::Faults:
      return exact_fact(ctx, &ExactFacts::faults) || ctx.stats().present[size_t(Metric::PageFaults)];
    case Needs::Allocs:
      return exact_fact(ctx, &ExactFacts::alloc) || ctx.stats().present[size_t(Metric::AllocCalls)];
    case Needs::Syscalls:
      return ctx.profile().meta.syscalls.has_value() || ctx.stats().present[size_t(Metric::Syscalls)];
    case Needs::Events:
      return ctx.cpu_measured() || ctx.stats().present[size_t(Metric::Switches)];
  }
  return true;
}

std::string column_cell(const ReportContext& ctx, const MetricColumnDef& c, MetricView self, MetricView total) {
  return column_known(ctx, c) && !c.running ? c.cell(self, total, ctx.grand_total_ns()) : std::string("-");
}

std::vector<Metric> metrics_no_column_reads(std::string_view spec, std::string_view sort) {
  if (spec == "all") return {};
  Keys named = every_default_key();
  for (std::string_view key : split_keys(spec)) named.push_back(is_adjustment(key) ? key.substr(1) : key);
  named.push_back(sort);
  std::vector<Metric> out;
  for (const ColumnOnlyMetric& m : kColumnOnlyMetrics)
    if (std::none_of(m.columns.begin(), m.columns.end(),
                     [&](std::string_view c) { return std::find(named.begin(), named.end(), c) != named.end(); }))
      out.push_back(m.metric);
  return out;
}

std::vector<Metric> column_only_metrics() {
  std::vector<Metric> out;
  for (const ColumnOnlyMetric& m : kColumnOnlyMetrics) out.push_back(m.metric);
  return out;
}

Result<std::vector<const MetricColumnDef*>> shown_columns(const ReportContext& ctx, TableKind kind) {
  const std::string_view spec = ctx.options().columns;
  Keys keys;
  if (spec.empty()) {
    keys = default_keys(ctx, kind);
  } else if (spec == "all") {
    for (const MetricColumnDef& c : kColumns) keys.push_back(c.key);
  } else {
    keys = split_keys(spec);
    const size_t changes = size_t(std::count_if(keys.begin(), keys.end(), is_adjustment));
    if (changes && changes != keys.size())
      return make_error(fmt::format("--columns '{}': mix of names and +/- changes: use either", escape_text(spec)));
    if (changes) {
      auto adjusted = adjusted_keys(default_keys(ctx, kind), keys);
      if (!adjusted) return adjusted.error();
      keys = std::move(adjusted).value();
    }
  }
  std::vector<const MetricColumnDef*> out;
  for (std::string_view key : keys) {
    const MetricColumnDef* c = find_metric_column(key);
    if (!c)
      return make_error(fmt::format("unknown column '{}' (valid: {}, all)", escape_text(key), metric_column_keys()));
    out.push_back(c);
  }
  return out;
}

}  // namespace callprof

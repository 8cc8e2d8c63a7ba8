// The column catalog and the default column sets of the function and node tables.
#include "report/columns.h"

#include <fmt/format.h>

#include "report/text.h"

namespace callprof {
namespace {

enum class Unit { Count, Ns, Bytes };

std::string show(uint64_t v, Unit u) {
  switch (u) {
    case Unit::Ns: return format_ns(v);
    case Unit::Bytes: return format_bytes(v);
    case Unit::Count: break;
  }
  return std::to_string(v);
}

template <Metric M>
uint64_t self_of(const Metrics& s, const Metrics&) { return s[M]; }
template <Metric M>
uint64_t total_of(const Metrics&, const Metrics& t) { return t[M]; }
template <Metric M, Unit U>
std::string self_cell(const Metrics& s, const Metrics&, uint64_t) { return show(s[M], U); }
template <Metric M, Unit U>
std::string total_cell(const Metrics&, const Metrics& t, uint64_t) { return show(t[M], U); }

uint64_t per_call(uint64_t v, uint64_t calls) { return calls ? v / calls : 0; }
// Max is only meaningful where some single call was timed (min is set).
uint64_t max_or_unset(const Metrics& s) { return s.has_min(Metric::MinWallNs) ? s[Metric::MaxWallNs] : Metrics::kUnset; }
uint64_t or_zero(uint64_t v) { return v == Metrics::kUnset ? 0 : v; }

#define CALLPROF_PAIR(key, title, metric, unit)                                                    \
  MetricColumnDef{key, title, self_of<metric>, self_cell<metric, unit>},                           \
      MetricColumnDef {                                                                            \
    key "total", "total " title, total_of<metric>, total_cell<metric, unit>                        \
  }

const std::vector<MetricColumnDef> kColumns = {
    {"calls", "calls", self_of<Metric::Calls>, self_cell<Metric::Calls, Unit::Count>},
    {"self", "self", self_of<Metric::WallNs>, self_cell<Metric::WallNs, Unit::Ns>},
    {"self%", "self%", self_of<Metric::WallNs>,
     [](const Metrics& s, const Metrics&, uint64_t g) { return format_pct(s[Metric::WallNs], g); }},
    {"total", "total", total_of<Metric::WallNs>, total_cell<Metric::WallNs, Unit::Ns>},
    {"total%", "total%", total_of<Metric::WallNs>,
     [](const Metrics&, const Metrics& t, uint64_t g) { return format_pct(t[Metric::WallNs], g); }},
    {"avg", "avg self", [](const Metrics& s, const Metrics&) { return per_call(s[Metric::WallNs], s[Metric::Calls]); },
     [](const Metrics& s, const Metrics&, uint64_t) {
       return s[Metric::Calls] ? format_ns(s[Metric::WallNs] / s[Metric::Calls]) : std::string("-");
     }},
    {"avgtotal", "avg total",
     [](const Metrics& s, const Metrics& t) { return per_call(t[Metric::WallNs], s[Metric::Calls]); },
     [](const Metrics& s, const Metrics& t, uint64_t) {
       return s[Metric::Calls] ? format_ns(t[Metric::WallNs] / s[Metric::Calls]) : std::string("-");
     }},
    {"min", "min self", [](const Metrics& s, const Metrics&) { return or_zero(s[Metric::MinWallNs]); },
     [](const Metrics& s, const Metrics&, uint64_t) { return format_ns(s[Metric::MinWallNs]); }},
    {"max", "max self", [](const Metrics& s, const Metrics&) { return or_zero(max_or_unset(s)); },
     [](const Metrics& s, const Metrics&, uint64_t) { return format_ns(max_or_unset(s)); }},
    CALLPROF_PAIR("cpu", "cpu", Metric::CpuNs, Unit::Ns),
    CALLPROF_PAIR("offcpu", "off-cpu", Metric::OffCpuNs, Unit::Ns),
    CALLPROF_PAIR("preempted", "preempted", Metric::PreemptedNs, Unit::Ns),
    CALLPROF_PAIR("switches", "switches", Metric::Switches, Unit::Count),
    CALLPROF_PAIR("faults", "faults", Metric::PageFaults, Unit::Count),
    CALLPROF_PAIR("allocs", "allocs", Metric::AllocCalls, Unit::Count),
    CALLPROF_PAIR("allocbytes", "alloc bytes", Metric::AllocBytes, Unit::Bytes),
    CALLPROF_PAIR("frees", "frees", Metric::FreeCalls, Unit::Count),
    CALLPROF_PAIR("samples", "samples", Metric::Samples, Unit::Count),
    CALLPROF_PAIR("syscalls", "syscalls", Metric::Syscalls, Unit::Count),
    CALLPROF_PAIR("syscalltime", "syscall time", Metric::SyscallNs, Unit::Ns),
    CALLPROF_PAIR("syscallerrors", "syscall errors", Metric::SyscallErrors, Unit::Count),
    {"indirect", "indirect", self_of<Metric::IndirectCalls>, self_cell<Metric::IndirectCalls, Unit::Count>},
};

#undef CALLPROF_PAIR

std::vector<std::string_view> default_keys(const ReportContext& ctx, TableKind kind) {
  std::vector<std::string_view> keys;
  switch (kind) {
    case TableKind::Flat: keys = {"calls", "self", "self%", "total", "total%", "avg", "avgtotal", "min", "max"}; break;
    case TableKind::Tree: keys = {"calls", "self", "total", "total%", "min", "max"}; break;
    case TableKind::Callers: keys = {"self", "total"}; break;
  }
  const auto& present = ctx.stats().present;
  auto add = [&](std::initializer_list<std::string_view> more) { keys.insert(keys.end(), more); };
  if (ctx.cpu_measured()) add({"cpu", "cputotal", "offcpu", "offcputotal"});
  // Counts of events rather than amounts: self only, to keep the default tables readable.
  if (present[size_t(Metric::PageFaults)]) add({"faults"});
  if (present[size_t(Metric::Switches)]) add({"switches"});
  if (present[size_t(Metric::AllocCalls)] || present[size_t(Metric::AllocBytes)])
    add({"allocs", "allocstotal", "allocbytes", "allocbytestotal"});
  if (ctx.stats().has_samples && kind == TableKind::Flat) add({"samples", "samplestotal"});
  if (ctx.stats().has_samples && kind == TableKind::Tree) add({"samples"});
  // Inclusive: a function's own system calls are its `[syscall]` children (view syscalls).
  if (present[size_t(Metric::Syscalls)] && kind != TableKind::Callers) add({"syscallstotal", "syscalltimetotal"});
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

Result<std::vector<const MetricColumnDef*>> shown_columns(const ReportContext& ctx, TableKind kind) {
  std::vector<std::string_view> keys;
  const std::string_view spec = ctx.options().columns;
  if (spec.empty()) keys = default_keys(ctx, kind);
  for (size_t at = 0; !spec.empty() && at <= spec.size();) {
    const size_t comma = std::min(spec.find(',', at), spec.size());
    keys.push_back(spec.substr(at, comma - at));
    at = comma + 1;
  }
  std::vector<const MetricColumnDef*> out;
  for (std::string_view key : keys) {
    const MetricColumnDef* c = find_metric_column(key);
    if (!c) return make_error(fmt::format("unknown column '{}' (valid: {})", escape_text(key), metric_column_keys()));
    out.push_back(c);
  }
  return out;
}

}  // namespace callprof

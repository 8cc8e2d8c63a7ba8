// Diffing: both trees walked once at the same fold level into function and path rows keyed
// by function identity, the new side scaled by the run's typical change, each row's change
// judged against its noise, the largest real changes first.
#include "query/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

namespace callprof {

std::optional<DiffMetric> parse_diff_metric(std::string_view name) {
  for (DiffMetric m : {DiffMetric::Cpu, DiffMetric::Self, DiffMetric::Total, DiffMetric::Calls, DiffMetric::Samples})
    if (diff_metric_name(m) == name) return m;
  return std::nullopt;
}

std::string_view diff_metric_name(DiffMetric m) {
  switch (m) {
    case DiffMetric::Cpu:
      return "cpu";
    case DiffMetric::Self:
      return "self";
    case DiffMetric::Total:
      return "total";
    case DiffMetric::Calls:
      return "calls";
    case DiffMetric::Samples:
      return "samples";
  }
  return "self";
}

std::optional<DiffScale> parse_diff_scale(std::string_view name) {
  for (DiffScale s : {DiffScale::Typical, DiffScale::Total, DiffScale::None})
    if (diff_scale_name(s) == name) return s;
  return std::nullopt;
}

std::string_view diff_scale_name(DiffScale s) {
  switch (s) {
    case DiffScale::Typical:
      return "typical";
    case DiffScale::Total:
      return "total";
    case DiffScale::None:
      return "none";
  }
  return "typical";
}

bool DiffRow::changed() const { return std::abs(delta()) > noise; }

namespace {

// Call paths of both sides as one numbering: (parent path, function key) -> path.
struct Paths {
  static constexpr uint32_t kNone = UINT32_MAX;
  std::unordered_map<uint64_t, uint32_t> index;
  std::vector<uint32_t> parent;  // kNone for a top-level path
  std::vector<uint32_t> key;
  std::vector<DiffSide> base, next;

  uint32_t at(uint32_t parent_path, uint32_t function) {
    const uint64_t k = (uint64_t(parent_path + 1) << 32) | function;
    auto [it, added] = index.try_emplace(k, uint32_t(parent.size()));
    if (added) {
      parent.push_back(parent_path);
      key.push_back(function);
      base.emplace_back();
      next.emplace_back();
    }
    return it->second;
  }
  DiffSide& side(bool is_base, uint32_t path) { return (is_base ? base : next)[path]; }
};

struct Rows {
  std::vector<DiffSide> base, next;  // functions, by key
  std::vector<bool> folded;          // by key
  Paths paths;
  DiffSide& function(bool is_base, uint32_t key) {
    std::vector<DiffSide>& v = is_base ? base : next;
    if (key >= v.size()) v.resize(key + 1);
    return v[key];
  }
};

// Calls of a node whose hook cost compensation took from the node itself (its own hooked
// calls and calls of excluded functions) and from its caller (every call but a system
// call's, which passed no hook): model/transform/compensate.h.
uint64_t own_hooked(MetricRow m) {
  const uint64_t calls = m[Metric::Calls];
  return calls - std::min(calls, m[Metric::Syscalls] + m[Metric::FoldedCalls]) + m[Metric::ExcludedCalls];
}
uint64_t caller_hooked(MetricRow m) { return m[Metric::Calls] - std::min(m[Metric::Calls], m[Metric::Syscalls]); }

void add_self(DiffSide& s, MetricRow m) {
  s.self_ns += m[Metric::WallNs];
  s.cpu_ns += m[Metric::CpuNs];
  s.samples += m[Metric::Samples];
  s.switches += m[Metric::Switches];
  s.hooked_self += own_hooked(m);
}

void add_total(DiffSide& s, MetricRow cum) {
  s.total_ns += cum[Metric::WallNs];
  s.total_samples += cum[Metric::Samples];
  s.total_switches += cum[Metric::Switches];
  s.hooked_total += cum[Metric::Calls] + cum[Metric::ExcludedCalls];
}

constexpr std::array kCumMetrics = {Metric::WallNs, Metric::Samples, Metric::Calls, Metric::ExcludedCalls,
                                    Metric::Switches};

FoldMode mode_of(FunctionId f, const std::vector<FoldMode>& fold) { return f < fold.size() ? fold[f] : FoldMode::Kept; }

// Per node: the calls of nodes folded to match the other run that were hooked here, summed
// over its subtree (the node's own when it is such a node).
std::vector<uint64_t> refolded_calls(const CallTree& t, const std::vector<FoldMode>& fold, bool subtree) {
  std::vector<uint64_t> out(t.size(), 0);
  for (NodeId n = 1; n < t.size(); ++n)
    if (mode_of(t.node(n).function, fold) == FoldMode::Folded)
      out[n] = t.base(n)[Metric::Calls] - std::min(t.base(n)[Metric::Calls], t.base(n)[Metric::FoldedCalls]);
  if (subtree)
    for (NodeId n = NodeId(t.size()) - 1; n > 0; --n) out[t.node(n).parent] += out[n];  // children after parents
  return out;
}

// One side's tree into the rows, at the fold level: a folded node's base goes to its
// nearest kept ancestor (as --hide does), its children move up to that ancestor's path.
void add_side(const Analysis& a, const std::vector<uint32_t>& keys, const std::vector<FoldMode>& fold,
              FunctionKeys& all, bool is_base, Rows& rows) {
  const CallTree& t = a.tree();
  const MetricTable cum = cumulative(t, kCumMetrics);
  const std::vector<uint64_t> refolded = refolded_calls(t, fold, false), refolded_cum = refolded_calls(t, fold, true);
  const std::vector<uint32_t>& level = a.levels();
  auto key_of = [&](FunctionId f) { return f < keys.size() ? keys[f] : all.unknown(a, f); };
  std::vector<NodeId> owner(t.size(), kRootNode);  // the nearest kept node, itself when kept
  std::vector<uint32_t> path(t.size(), Paths::kNone);
  for (NodeId n = 1; n < t.size(); ++n) {
    const CallNode& node = t.node(n);
    const uint32_t key = key_of(node.function);
    const FoldMode mode = mode_of(node.function, fold);
    const bool kept = mode == FoldMode::Kept;
    owner[n] = kept ? n : owner[node.parent];
    path[n] = kept ? rows.paths.at(path[node.parent], key) : path[node.parent];
    const MetricRow m = t.base(n);
    if (owner[n] != kRootNode)
      for (DiffSide* s :
           {&rows.function(is_base, key_of(t.node(owner[n]).function)), &rows.paths.side(is_base, path[n])}) {
        add_self(*s, m);
        s->refolded_self += refolded[n];
      }
    if (owner[node.parent] != kRootNode) {
      rows.function(is_base, key_of(t.node(owner[node.parent]).function)).hooked_self += caller_hooked(m);
      rows.paths.side(is_base, path[node.parent]).hooked_self += caller_hooked(m);
    }
    if (mode == FoldMode::Dropped) continue;
    DiffSide& f = rows.function(is_base, key);
    f.present = true;
    f.calls += m[Metric::Calls];
    if (mode == FoldMode::Folded) {
      if (key >= rows.folded.size()) rows.folded.resize(key + 1);
      rows.folded[key] = true;
      continue;
    }
    DiffSide& p = rows.paths.side(is_base, path[n]);
    p.present = true;
    p.calls += m[Metric::Calls];
    for (DiffSide* s : {&f, &p}) {
      if (s == &f && level[n] != 0) continue;  // a function's outermost instances only: recursion counts once
      add_total(*s, cum[n]);
      s->refolded_total += refolded_cum[n];
    }
  }
}

double metric_value(const DiffSide& s, DiffMetric m) {
  switch (m) {
    case DiffMetric::Cpu:
      return double(s.cpu_ns);
    case DiffMetric::Self:
      return double(s.self_ns);
    case DiffMetric::Total:
      return double(s.total_ns);
    case DiffMetric::Calls:
      return double(s.calls);
    case DiffMetric::Samples:
      return double(s.samples);
  }
  return 0;
}

// Rounds of peeling changed functions off the spread (settle_spreads): each settles more.
constexpr int kPeelRounds = 4;

bool is_time(DiffMetric m) { return m == DiffMetric::Cpu || m == DiffMetric::Self || m == DiffMetric::Total; }

// The metric the run's typical change is measured on: a function's own share, so a
// total does not count its callees' change as its own.
DiffMetric scale_basis(DiffMetric m) { return m == DiffMetric::Total ? DiffMetric::Self : m; }

RowNumbers row_numbers(const DiffSide& base, const DiffSide& next, DiffMetric m) {
  const bool total = m == DiffMetric::Total;
  RowNumbers r{metric_value(base, m), metric_value(next, m)};
  if (is_time(m)) {
    r.hooked_base = total ? base.hooked_total : base.hooked_self;
    r.hooked_next = total ? next.hooked_total : next.hooked_self;
    r.refolded_base = total ? base.refolded_total : base.refolded_self;
    r.refolded_next = total ? next.refolded_total : next.refolded_self;
    r.switches_base = total ? base.total_switches : base.switches;
    r.switches_next = total ? next.total_switches : next.switches;
  }
  if (m != DiffMetric::Calls) {
    r.samples_base = total ? base.total_samples : base.samples;
    r.samples_next = total ? next.total_samples : next.samples;
  }
  return r;
}

uint64_t scaled(uint64_t v, double scale) { return uint64_t(std::llround(double(v) * scale)); }

void scale_side(DiffSide& s, double scale) {
  for (uint64_t* v : {&s.self_ns, &s.total_ns, &s.cpu_ns, &s.samples, &s.total_samples}) *v = scaled(*v, scale);
}

double hook_cost(const Analysis& a) {
  if (!a.compensated() || a.options().raw) return 0;
  double cost = 0;
  for (const Process& p : a.profile().processes)
    if (has_hook_costs(p)) cost = std::max(cost, p.hook_inner_ns + p.hook_outer_ns);
  return cost;
}

DiffRun run_of(const Analysis& a, DiffMetric m) {
  DiffRun r;
  r.total_ns = a.grand_total_ns();
  r.cpu_measured = a.cpu_measured();
  r.calls_known = a.stats().present[size_t(Metric::Calls)];
  r.sampled = a.stats().has_samples;
  r.cpu_ns = a.total(Metric::CpuNs);
  r.preempted_ns = a.total(Metric::PreemptedNs);
  r.waiting_ns = a.total(Metric::OffCpuNs);  // blocked or asleep: preempted time is apart (model/metrics.h)
  switch (m) {
    case DiffMetric::Cpu:
      r.metric_total = r.cpu_ns;
      break;
    case DiffMetric::Self:
    case DiffMetric::Total:
      r.metric_total = r.total_ns;
      break;
    case DiffMetric::Calls:
      r.metric_total = a.total(Metric::Calls);
      break;
    case DiffMetric::Samples:
      r.metric_total = a.total(Metric::Samples);
      break;
  }
  r.hook_cost_ns = hook_cost(a);
  return r;
}

// What each row's measurement may be off by, whatever the scale.
void measurement_noise(Diff& d) {
  NoiseModel& n = d.noise;
  if (is_time(d.metric)) {
    n.hook_ns_base = hook_uncertainty_ns(d.base.hook_cost_ns, d.next.hook_cost_ns);
    n.hook_ns_next = hook_uncertainty_ns(d.next.hook_cost_ns, d.base.hook_cost_ns);
    n.refold_ns_base = kRefoldUncertainty * d.base.hook_cost_ns;
    n.refold_ns_next = kRefoldUncertainty * d.next.hook_cost_ns;
    n.switch_sigma_ns = kSwitchSigmaNs;
  }
  if (d.metric != DiffMetric::Calls) {
    n.sampled_base = d.base.sampled;
    n.sampled_next = d.next.sampled;
  }
}

// The functions in both runs (not folded) and above the smallest change that counts in
// either: what the typical change and spread are of (the ratio of two values below it says
// nothing: a function of a few microseconds varies by any factor).
struct Basis {
  std::vector<ValuePair> values;
  std::vector<uint32_t> keys;
};

Basis basis_of(const Diff& d, const Rows& rows, double min_change) {
  Basis b;
  const DiffMetric metric = scale_basis(d.metric);
  const bool wall = metric == DiffMetric::Self && d.metric == DiffMetric::Total;
  const double base_floor = min_change * double(wall ? d.base.total_ns : d.base.metric_total);
  const double next_floor = min_change * double(wall ? d.next.total_ns : d.next.metric_total);
  for (uint32_t k = 0; k < rows.base.size() && k < rows.next.size(); ++k)
    if (rows.base[k].present && rows.next[k].present && !(k < rows.folded.size() && rows.folded[k])) {
      const RowNumbers r = row_numbers(rows.base[k], rows.next[k], metric);
      if (r.base < base_floor && r.next < next_floor) continue;
      b.values.push_back({r.base, r.next, d.noise.log_error(r)});
      b.keys.push_back(k);
    }
  return b;
}

// The scale and the rest of the noise model.
void judge_noise(Diff& d, const Basis& b, const DiffOptions& o) {
  d.typical = typical_change(b.values, o.min_spread);
  if (d.metric == DiffMetric::Calls) {  // exact counts: every difference is one
    d.scale_method = DiffScale::None;
    return;
  }
  if (d.scale_method == DiffScale::Typical && !d.typical.dominated) d.scale = 1 / d.typical.ratio;
  if (d.scale_method == DiffScale::Total && d.next.metric_total > 0)
    d.scale = double(d.base.metric_total) / double(d.next.metric_total);
  NoiseModel& n = d.noise;
  n.scale = d.scale;
  n.min_change_share = o.min_change;
  n.min_change = o.min_change * std::max(double(d.base.metric_total), double(d.next.metric_total) * d.scale);
}

DiffRow make_row(DiffSide base, DiffSide next, const Diff& d, double spread) {
  DiffRow r;
  scale_side(next, d.scale);
  r.base = base;
  r.next = next;
  RowNumbers n = row_numbers(base, next, d.metric);
  n.spread = spread;
  r.base_value = n.base;
  r.next_value = n.next;
  r.noise = d.noise.threshold(n);
  return r;
}

// Changes beyond noise first, then the largest; ties by `tie`.
template <typename Tie>
auto ranking(Tie tie) {
  return [tie](const DiffRow& a, const DiffRow& b) {
    if (a.changed() != b.changed()) return a.changed();
    const double da = std::abs(a.delta()), db = std::abs(b.delta());
    return da != db ? da > db : tie(a, b);
  };
}

// Counts the rows beyond and within noise, leaves the latter out unless `all`; keeps the
// `limit` first.
template <typename Less>
std::vector<DiffRow> shown(std::vector<DiffRow> rows, const DiffOptions& o, Less less, size_t& changed,
                           size_t& within_noise) {
  changed = size_t(std::count_if(rows.begin(), rows.end(), [](const DiffRow& r) { return r.changed(); }));
  within_noise = rows.size() - changed;
  if (!o.all) std::erase_if(rows, [](const DiffRow& r) { return !r.changed(); });
  const size_t keep = o.limit && o.limit < rows.size() ? o.limit : rows.size();
  std::partial_sort(rows.begin(), rows.begin() + std::ptrdiff_t(keep), rows.end(), less);
  rows.resize(keep);
  return rows;
}

// The spread each function's change is judged by, by key. Functions that changed are peeled
// off the ones the spread is measured on, round by round: each unchanged function is judged
// by the spread of the other unchanged ones, each changed one by that of all unchanged ones,
// until the verdicts hold (a start-up outlier in one function would otherwise widen the band
// of the function that really changed, and hide it).
std::vector<double> settle_spreads(Diff& d, const Rows& rows, const Basis& b, double min_spread) {
  if (d.metric == DiffMetric::Calls) return std::vector<double>(d.key_display.size(), 0.0);  // exact
  std::vector<bool> quiet(b.keys.size(), true);
  std::vector<double> judged(b.keys.size(), d.typical.spread);
  for (int round = 0; round < kPeelRounds; ++round) {
    const Spreads s = spreads_among(b.values, quiet, min_spread);
    d.typical.spread = s.all;
    std::vector<bool> verdict(b.keys.size());
    for (size_t i = 0; i < b.keys.size(); ++i) {
      judged[i] = quiet[i] ? s.without[i] : s.all;
      verdict[i] = !make_row(rows.base[b.keys[i]], rows.next[b.keys[i]], d, judged[i]).changed();
    }
    if (verdict == quiet) break;
    quiet = std::move(verdict);
  }
  std::vector<double> spread(d.key_display.size(), d.typical.spread);
  for (size_t i = 0; i < b.keys.size(); ++i) spread[b.keys[i]] = judged[i];
  return spread;
}

void function_rows(Diff& d, Rows& rows, const std::vector<double>& spread, const DiffOptions& o) {
  std::vector<DiffRow> all;
  for (uint32_t k = 0; k < rows.base.size(); ++k) {
    if (!rows.base[k].present && !rows.next[k].present) continue;
    DiffRow r = make_row(rows.base[k], rows.next[k], d, spread[k]);
    r.keys = {k};
    r.folded = k < rows.folded.size() && rows.folded[k];
    all.push_back(std::move(r));
  }
  d.functions = shown(std::move(all), o, ranking([&](const DiffRow& a, const DiffRow& b) {
                        return d.key_display[a.keys[0]] < d.key_display[b.keys[0]];
                      }),
                      d.functions_changed, d.functions_within_noise);
}

// Paths by first appearance on ties; the frames are named only for the rows kept: a large
// tree has far more paths than a report shows.
// A path is judged by the spread of its function's.
void path_rows(Diff& d, const Paths& paths, const std::vector<double>& spread, const DiffOptions& o) {
  std::vector<DiffRow> all;
  all.reserve(paths.parent.size());
  for (uint32_t i = 0; i < paths.parent.size(); ++i) {
    if (!paths.base[i].present && !paths.next[i].present) continue;  // only folded nodes' base landed here
    DiffRow r = make_row(paths.base[i], paths.next[i], d, spread[paths.key[i]]);
    r.keys = {i};  // the path's index until named
    all.push_back(std::move(r));
  }
  d.paths = shown(std::move(all), o, ranking([](const DiffRow& a, const DiffRow& b) { return a.keys < b.keys; }),
                  d.paths_changed, d.paths_within_noise);
  for (DiffRow& r : d.paths) {
    std::vector<uint32_t> frames;
    for (uint32_t p = r.keys[0]; p != Paths::kNone; p = paths.parent[p]) frames.push_back(paths.key[p]);
    std::reverse(frames.begin(), frames.end());
    r.keys = std::move(frames);
  }
}

void name_rows(Diff& d, const FunctionKeys& keys) {
  for (std::vector<DiffRow>* list : {&d.functions, &d.paths})
    for (DiffRow& r : *list)
      for (uint32_t k : r.keys) {
        r.names.push_back(keys.full_name(k));
        r.display.push_back(d.key_display[k]);
      }
}

// Waiting for a CPU (preempted) is the machine's doing, not the program's: it does not count.
bool mostly_on_cpu(const Analysis& a) { return a.total(Metric::CpuNs) >= a.total(Metric::OffCpuNs); }

Status check_metric(DiffMetric m, const Analysis& a, std::string_view label) {
  const std::string_view name = diff_metric_name(m);
  if (m == DiffMetric::Cpu && !a.cpu_measured())
    return make_error(
        fmt::format("--metric {}: the {} profile did not measure on-CPU time (recorded with "
                    "--no-offcpu, or in a mode that does not): use --metric self",
                    name, label));
  if (m == DiffMetric::Calls && !a.stats().present[size_t(Metric::Calls)])
    return make_error(
        fmt::format("--metric {}: the {} profile counts no calls (a sampled profile): use "
                    "--metric samples or self",
                    name, label));
  if (m == DiffMetric::Samples && !a.stats().has_samples)
    return make_error(
        fmt::format("--metric {}: the {} profile has no samples (not a sampled profile): use "
                    "--metric self, cpu or calls",
                    name, label));
  return Ok{};
}

}  // namespace

DiffMetric default_diff_metric(const Analysis& base, const Analysis& next) {
  const bool cpu = base.cpu_measured() && next.cpu_measured() && mostly_on_cpu(base) && mostly_on_cpu(next);
  return cpu ? DiffMetric::Cpu : DiffMetric::Self;
}

Result<Diff> diff_analyses(const Analysis& base, const Analysis& next, const DiffOptions& o) {
  Diff d;
  d.metric = o.metric.value_or(default_diff_metric(base, next));
  d.metric_by_default = !o.metric;
  for (auto [a, label] : {std::pair{&base, "base"}, std::pair{&next, "new"}})
    if (Status s = check_metric(d.metric, *a, label); !s) return s.error();
  d.scale_method = o.scale;
  d.base = run_of(base, d.metric);
  d.next = run_of(next, d.metric);
  FunctionKeys keys;
  const auto [base_keys, next_keys] = keys.add_sides(base, next);
  d.fold = fold_level(base, base_keys, next, next_keys);
  Rows rows;
  add_side(base, base_keys, d.fold.base, keys, true, rows);
  add_side(next, next_keys, d.fold.next, keys, false, rows);
  d.key_display = keys.display_names(base.options().names);
  measurement_noise(d);
  const Basis basis = basis_of(d, rows, o.min_change);
  judge_noise(d, basis, o);
  rows.base.resize(d.key_display.size());
  rows.next.resize(d.key_display.size());
  const std::vector<double> spread = settle_spreads(d, rows, basis, o.min_spread);
  function_rows(d, rows, spread, o);
  path_rows(d, rows.paths, spread, o);
  name_rows(d, keys);
  return d;
}

}  // namespace callprof

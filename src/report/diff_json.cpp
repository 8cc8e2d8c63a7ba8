// Diff JSON: what the text shows, every number unrounded, every row's noise and verdict.
// Names reach the document through the serializer (invalid UTF-8 replaced) and inert_json.
#include "report/diff_json.h"

#include <nlohmann/json.hpp>

#include "util/escape.h"

namespace callprof {
namespace {

using json = nlohmann::ordered_json;

json side_json(const DiffSide& s, const DiffRun& run) {
  if (!s.present) return nullptr;
  return {{"calls", run.calls_known ? json(s.calls) : json(nullptr)},
          {"self_ns", s.self_ns},
          {"total_ns", s.total_ns},
          {"cpu_ns", run.cpu_measured ? json(s.cpu_ns) : json(nullptr)},
          {"samples", run.sampled ? json(s.samples) : json(nullptr)}};
}

json run_json(const DiffRun& r, const std::string& label) {
  auto measured = [&](uint64_t v) { return r.cpu_measured ? json(v) : json(nullptr); };
  return {{"label", label},
          {"total_ns", r.total_ns},
          {"cpu_ns", measured(r.cpu_ns)},
          {"waiting_ns", measured(r.waiting_ns)},
          {"preempted_ns", measured(r.preempted_ns)},
          {"metric_total", r.metric_total},
          {"hook_cost_ns", r.hook_cost_ns}};
}

json rows_json(const Diff& d, const std::vector<DiffRow>& rows, bool paths) {
  const bool calls_known = d.base.calls_known && d.next.calls_known;
  json a = json::array();
  for (const DiffRow& r : rows) {
    json row = paths ? json{{"path", r.names}, {"display", r.display}}
                     : json{{"name", r.names.front()}, {"display", r.display.front()}};
    row["base"] = side_json(r.base, d.base);
    row["new"] = side_json(r.next, d.next);
    row["base_value"] = r.base_value;
    row["new_value"] = r.next_value;
    row["delta"] = r.delta();
    row["noise"] = r.noise;
    row["changed"] = r.changed();
    row["self_delta_ns"] = r.self_delta();
    row["total_delta_ns"] = r.total_delta();
    row["calls_delta"] = calls_known ? json(r.calls_delta()) : json(nullptr);
    if (!paths) row["folded"] = r.folded;
    a.push_back(std::move(row));
  }
  return a;
}

json fold_json(const Diff& d) {
  json a = json::array();
  for (const LeveledFunction& l : d.fold.functions)
    a.push_back({{"name", d.key_display[l.key]},
                 {"by", l.mode == FoldMode::Dropped ? "filter" : "auto-fold"},
                 {"in_base", l.in_base},
                 {"in_new", l.in_new}});
  return a;
}

}  // namespace

void render_diff_json(const Diff& d, const DiffReportOptions& o, std::ostream& out) {
  const NoiseModel& n = d.noise;
  // Raised when a key changes meaning (docs/json.md, "callprof diff --json").
  const json doc = {{"schema_version", 2},
                    {"base", run_json(d.base, o.base_label)},
                    {"new", run_json(d.next, o.next_label)},
                    {"metric", diff_metric_name(d.metric)},
                    {"metric_default", d.metric_by_default},
                    {"scale_method", diff_scale_name(d.scale_method)},
                    {"scale", d.scale},
                    {"typical_ratio", d.typical.ratio},
                    {"typical_functions", d.typical.functions},
                    {"typical_support", d.typical.support},
                    {"typical_ambiguous", d.typical.ambiguous},
                    {"typical_dominated", d.typical.dominated},
                    {"noise",
                     {{"spread", d.typical.spread},
                      {"hook_ns_per_call_base", n.hook_ns_base},
                      {"hook_ns_per_call_new", n.hook_ns_next},
                      {"refolded_ns_per_call_base", n.refold_ns_base},
                      {"refolded_ns_per_call_new", n.refold_ns_next},
                      {"sampled", n.sampled_base || n.sampled_next},
                      {"switch_sigma_ns", n.switch_sigma_ns},
                      {"min_change", n.min_change},
                      {"min_change_share", n.min_change_share}}},
                    {"folded", fold_json(d)},
                    {"warnings", d.fold.warnings},
                    {"functions", rows_json(d, d.functions, false)},
                    {"functions_changed", d.functions_changed},
                    {"functions_within_noise", d.functions_within_noise},
                    {"paths", rows_json(d, d.paths, true)},
                    {"paths_changed", d.paths_changed},
                    {"paths_within_noise", d.paths_within_noise}};
  out << inert_json(doc.dump(1, ' ', false, json::error_handler_t::replace)) << '\n';
}

}  // namespace callprof

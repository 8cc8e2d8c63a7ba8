// Diff as text: a header that says what was compared and how (metric, scale, noise, fold
// level), then per function and per call path the metric on both sides, its change, the
// noise it was judged against, and the calls. Names are untrusted: the table escapes them,
// the header through escape_text.
#include "report/diff_view.h"

#include <fmt/format.h>

#include "report/diff_json.h"
#include "report/table.h"
#include "report/text.h"

namespace callprof {
namespace {

std::string_view metric_meaning(DiffMetric m) {
  switch (m) {
    case DiffMetric::Cpu:
      return "self on-CPU time";
    case DiffMetric::Self:
      return "self wall time";
    case DiffMetric::Total:
      return "total wall time (the function and its callees)";
    case DiffMetric::Calls:
      return "calls (exact counts: not scaled, every difference counts)";
    case DiffMetric::Samples:
      return "self samples";
  }
  return "";
}

bool counts(DiffMetric m) { return m == DiffMetric::Calls || m == DiffMetric::Samples; }

std::string amount(double v, DiffMetric m) {
  const uint64_t u = uint64_t(std::llround(std::max(0.0, v)));
  return counts(m) ? fmt::format("{}", u) : format_ns(u);
}

std::string signed_amount(double v, DiffMetric m) {
  if (std::llround(v) == 0) return "0";
  return (v > 0 ? "+" : "-") + amount(std::abs(v), m);
}

std::string ratio(const DiffRow& r) {
  if (!r.base.present) return "new";
  if (!r.next.present) return "gone";
  if (r.base_value <= 0) return r.next_value <= 0 ? "1.00x" : "-";
  return fmt::format("{:.2f}x", r.next_value / r.base_value);
}

// What a row within noise is called: calls are exact, so theirs is no noise.
std::string_view quiet_word(const Diff& d) { return d.metric == DiffMetric::Calls ? "unchanged" : "within noise"; }

std::string label(const DiffRow& r, std::string_view quiet) {
  std::string s;
  for (const std::string& n : r.display) s += (s.empty() ? "" : " > ") + n;
  if (!r.base.present) s += "  [only in new]";
  if (!r.next.present) s += "  [only in base]";
  if (r.folded) s += "  [folded]";
  if (!r.changed()) s += fmt::format("  ({})", quiet);  // only there with --all
  return s;
}

std::string calls_cell(const DiffSide& s, bool known) { return known ? fmt::format("{}", s.calls) : "-"; }

void write_table(std::ostream& out, const Diff& d, const std::vector<DiffRow>& rows, const DiffReportOptions& o,
                 bool paths) {
  const std::string m(diff_metric_name(d.metric));
  const bool calls_metric = d.metric == DiffMetric::Calls;
  std::vector<Column> columns{{"base " + m}, {"new " + m}, {"Δ " + m}, {"ratio"}};
  if (!calls_metric) columns.insert(columns.end(), {{"noise"}, {"base calls"}, {"new calls"}, {"Δ calls"}});
  columns.push_back({paths ? "path" : "function", Align::Left});
  Table t(std::move(columns));
  const bool calls_known = d.base.calls_known && d.next.calls_known;
  for (const DiffRow& r : rows) {
    std::vector<std::string> cells{amount(r.base_value, d.metric), amount(r.next_value, d.metric),
                                   signed_amount(r.delta(), d.metric), ratio(r)};
    if (!calls_metric)
      cells.insert(cells.end(),
                   {"±" + amount(r.noise, d.metric), calls_cell(r.base, d.base.calls_known),
                    calls_cell(r.next, d.next.calls_known), calls_known ? fmt::format("{:+}", r.calls_delta()) : "-"});
    cells.push_back(label(r, quiet_word(d)));
    t.add_row(std::move(cells));
  }
  t.render(out, 2, o.width);
}

std::string run_line(const DiffRun& r) {
  std::string s = fmt::format("total {}", format_ns(r.total_ns));
  if (r.cpu_measured)
    s += fmt::format(" (on-CPU {}, waiting {}, preempted {})", format_ns(r.cpu_ns), format_ns(r.waiting_ns),
                     format_ns(r.preempted_ns));
  return s;
}

void write_metric_line(std::ostream& out, const Diff& d) {
  out << fmt::format("# metric: {}: {}", diff_metric_name(d.metric), metric_meaning(d.metric));
  const bool cpu_known = d.base.cpu_measured && d.next.cpu_measured;
  if (d.metric_by_default && d.metric == DiffMetric::Cpu)
    out << "; the default when both runs measured it and ran mostly on a CPU: a loaded machine adds off-CPU "
           "time, not CPU time (--metric self|total|calls)";
  else if (d.metric_by_default)
    out << (cpu_known ? "; the default for runs that spent more time blocked or asleep than on a CPU: CPU time "
                        "would miss what they wait for (--metric cpu|total|calls)"
                      : "; the default: the runs did not both measure CPU time (--metric total|calls)");
  out << '\n';
}

void write_scale_line(std::ostream& out, const Diff& d) {
  if (d.metric == DiffMetric::Calls) return;
  const std::string m(diff_metric_name(d.metric == DiffMetric::Total ? DiffMetric::Self : d.metric));
  const std::string typical = fmt::format(
      "the typical function's {} changed x{:.3g} ({:.0f}% of it, of {} "
      "functions, agrees)",
      m, d.typical.ratio, d.typical.support * 100, d.typical.functions);
  const bool dominated = d.scale_method == DiffScale::Typical && d.typical.dominated;
  if (d.scale_method == DiffScale::Typical && d.typical.functions == 0)
    out << "# scale:  none: no function has a value in both runs to measure the typical change by\n";
  else if (dominated)
    out << fmt::format(
        "# scale:  none: one function holds more than half of the two runs' {}, so their typical "
        "change (x{:.3g}) would be its own and hide it; --scale total to scale anyway\n",
        m, d.typical.ratio);
  else if (d.scale_method == DiffScale::Typical)
    out << fmt::format("# scale:  new x{:.4g}: {}; --scale total|none\n", d.scale, typical);
  else if (d.scale_method == DiffScale::Total)
    out << fmt::format("# scale:  new x{:.4g}: to the base's total; {}\n", d.scale, typical);
  else
    out << fmt::format("# scale:  none; {}\n", typical);
  if (d.typical.ambiguous && !dominated && d.typical.functions > 0)
    out << fmt::format(
        "# warning: no one change is shared by half of the runs' {} (x{:.3g} by {:.0f}%): the scale "
        "is a guess (--scale none compares as recorded)\n",
        m, d.typical.ratio, d.typical.support * 100);
}

void write_noise_line(std::ostream& out, const Diff& d) {
  if (d.metric == DiffMetric::Calls) return;
  const NoiseModel& n = d.noise;
  std::string s = fmt::format(
      "# noise:  a change counts beyond the spread of the unchanged functions' ratios "
      "({:.1f}%; a function that changed is judged by the others')",
      d.typical.spread * 100);
  if (n.hook_ns_base > 0 || n.hook_ns_next > 0)
    s += fmt::format(" + {:.1f}/{:.1f} ns per hooked call (compensation)", n.hook_ns_base, n.hook_ns_next);
  if (!d.fold.functions.empty() && (n.refold_ns_base > 0 || n.refold_ns_next > 0))
    s += fmt::format(" + {:.1f}/{:.1f} ns per hooked call of a function folded to match", n.refold_ns_base,
                     n.refold_ns_next);
  const bool samples = n.sampled_base || n.sampled_next, switches = n.switch_sigma_ns > 0;
  if (samples || switches)
    s += fmt::format(" + 3 sigma of its {}{}{}", samples ? "samples" : "", samples && switches ? " and " : "",
                     switches ? fmt::format("context switches ({} each)", format_ns(uint64_t(n.switch_sigma_ns))) : "");
  s += fmt::format(", and at least {} ({:.2g}% of the run, --min-change)", amount(n.min_change, d.metric),
                   n.min_change_share * 100);
  out << s << '\n';
}

void write_fold_lines(std::ostream& out, const Diff& d) {
  std::vector<std::string> one_run, both;
  bool filtered = false;
  for (const LeveledFunction& l : d.fold.functions) {
    std::string name = escape_text(d.key_display[l.key]);
    filtered = filtered || l.mode == FoldMode::Dropped;
    if (l.in_base && l.in_new) {
      both.push_back(std::move(name));
      continue;
    }
    one_run.push_back(name + (l.in_base ? " (base)" : " (new)"));
  }
  auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size() && i < 8; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > 8) s += fmt::format(", \u2026 and {} more (--json lists them)", names.size() - 8);
    return s;
  };
  if (!one_run.empty())
    out << fmt::format(
        "# folded: {} function{} folded in one run only (auto-fold{}), compared folded in both "
        "(time in the callers' self): {}\n",
        one_run.size(), one_run.size() == 1 ? "" : "s", filtered ? " or a record filter" : "", list(one_run));
  if (!both.empty()) out << fmt::format("# folded: {} in both runs: {}\n", both.size(), list(both));
  for (const std::string& w : d.fold.warnings) out << "# warning: " << escape_text(w) << '\n';
}

void write_section(std::ostream& out, const Diff& d, const DiffReportOptions& o, bool paths) {
  const std::vector<DiffRow>& rows = paths ? d.paths : d.functions;
  const size_t changed = paths ? d.paths_changed : d.functions_changed;
  const size_t quiet = paths ? d.paths_within_noise : d.functions_within_noise;
  const bool exact = d.metric == DiffMetric::Calls;
  out << fmt::format("\nby {}: {} changed{}", paths ? "call path" : "function", changed, exact ? "" : " beyond noise");
  if (quiet) out << fmt::format(", {} {}{}", quiet, quiet_word(d), o.all ? "" : " not shown (--all shows them)");
  if (rows.size() < changed + (o.all ? quiet : 0)) out << fmt::format("; the first {} (--limit)", rows.size());
  out << '\n';
  if (!rows.empty()) write_table(out, d, rows, o, paths);
}

}  // namespace

void render_diff(const Diff& d, const DiffReportOptions& o, std::ostream& out) {
  if (o.json) return render_diff_json(d, o, out);
  out << "# callprof diff\n";
  out << "# base:   " << escape_text(o.base_label) << ", " << run_line(d.base) << '\n';
  out << "# new:    " << escape_text(o.next_label) << ", " << run_line(d.next) << '\n';
  write_metric_line(out, d);
  write_scale_line(out, d);
  write_noise_line(out, d);
  write_fold_lines(out, d);
  write_section(out, d, o, false);
  write_section(out, d, o, true);
}

}  // namespace callprof

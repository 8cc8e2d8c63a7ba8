// Diff tables: base, new, delta and ratio of self and total per function and per path;
// rows only on one side are marked. Names are untrusted: the table escapes them.
#include "report/diff_view.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/table.h"
#include "report/text.h"

namespace callprof {
namespace {

std::string signed_ns(int64_t delta) {
  if (delta == 0) return "0";
  return (delta > 0 ? "+" : "-") + format_ns(uint64_t(delta > 0 ? delta : -delta));
}

std::string ratio(const DiffSide& base, const DiffSide& next, uint64_t DiffSide::*field) {
  if (!base.present) return "new";
  if (!next.present) return "gone";
  if (base.*field == 0) return next.*field == 0 ? "1.00x" : "-";
  return fmt::format("{:.2f}x", double(next.*field) / double(base.*field));
}

std::string label(const DiffRow& r, NameStyle style) {
  std::string s;
  for (const std::string& n : r.names) s += (s.empty() ? "" : " > ") + styled_name(n, "", style);
  if (!r.base.present) s += "  [only in new]";
  if (!r.next.present) s += "  [only in base]";
  return s;
}

void write_table(std::ostream& out, const std::vector<DiffRow>& rows, const DiffReportOptions& o, bool paths) {
  Table t({{"base self"}, {"new self"}, {"Δ self"}, {"ratio"}, {"base total"}, {"new total"}, {"Δ total"},
           {paths ? "path" : "function", Align::Left}});
  for (const DiffRow& r : rows)
    t.add_row({format_ns(r.base.self_ns), format_ns(r.next.self_ns), signed_ns(r.self_delta()),
               ratio(r.base, r.next, &DiffSide::self_ns), format_ns(r.base.total_ns), format_ns(r.next.total_ns),
               signed_ns(r.total_delta()), label(r, o.names)});
  t.render(out, 2, o.width);
}

nlohmann::ordered_json side_json(const DiffSide& s) {
  if (!s.present) return nullptr;
  return {{"calls", s.calls}, {"self_ns", s.self_ns}, {"total_ns", s.total_ns}};
}

void render_json(const Diff& d, const DiffReportOptions& o, std::ostream& out) {
  using json = nlohmann::ordered_json;
  auto rows = [](const std::vector<DiffRow>& list, bool paths) {
    json a = json::array();
    for (const DiffRow& r : list)
      a.push_back({{paths ? "path" : "name", paths ? json(r.names) : json(r.names.front())},
                   {"base", side_json(r.base)},
                   {"new", side_json(r.next)},
                   {"self_delta_ns", r.self_delta()},
                   {"total_delta_ns", r.total_delta()}});
    return a;
  };
  const json doc = {{"base", {{"label", o.base_label}, {"total_ns", d.base_total_ns}}},
                    {"new", {{"label", o.next_label}, {"total_ns", d.next_total_ns}}},
                    {"scale", d.scale},
                    {"functions", rows(d.functions, false)},
                    {"paths", rows(d.paths, true)}};
  out << inert_json(doc.dump(1, ' ', false, json::error_handler_t::replace)) << '\n';
}

}  // namespace

void render_diff(const Diff& d, const DiffReportOptions& o, std::ostream& out) {
  if (o.json) return render_json(d, o, out);
  out << "# callprof diff\n";
  out << "# base: " << escape_text(o.base_label) << ", total " << format_ns(d.base_total_ns) << '\n';
  out << "# new:  " << escape_text(o.next_label) << ", total " << format_ns(d.next_total_ns);
  if (d.scale != 1.0) out << fmt::format(" (normalized: new times x{:.4f})", d.scale);
  out << "\n\nby function (largest change first):\n";
  write_table(out, d.functions, o, false);
  out << "\nby call path:\n";
  write_table(out, d.paths, o, true);
}

}  // namespace callprof

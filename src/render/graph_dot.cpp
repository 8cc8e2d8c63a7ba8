// The call graph in Graphviz's language: one node per shown function (label: name, self,
// total, calls; fill: heat), one edge per caller -> callee (label: time and calls; width:
// from the model; dashed through hidden functions; edges that close a cycle do not rank),
// and the legend as the graph's own label (placed by Graphviz outside the nodes' area, so it
// never covers one) saying what was profiled, the metric, the threshold and the colour scale.
// Every profile string passes safe_text, then dot_escape (DOT strings) or html_label_escape.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "render/call_graph.h"
#include "render/graph_text.h"

namespace callprof {
namespace {

constexpr size_t kLabelChars = 60;      // a node's name in its box
constexpr size_t kTooltipChars = 1000;  // the full name on hover
constexpr size_t kEdgeNameChars = 120;  // names in an edge's tooltip
constexpr const char* kFont = "Helvetica,Arial,sans-serif";
constexpr double kEdgeFontPt = 10;
constexpr double kLegendFontPt = 12;
// Above this many edges dot's spline routing and network simplex dominate (measured on
// manypaths, 494 edges: 58 s with the defaults, 11 s with nslimit, 1.2-3.5 s with straight
// edges too): a dense graph gets straight edges and a coarser placement. docs/graph.md.
constexpr size_t kDenseEdges = 200;

struct Rgb {
  double r, g, b;
};

std::string hex(const Rgb& c) {
  auto byte = [](double v) { return int(std::lround(std::clamp(v, 0.0, 255.0))); };
  return fmt::format("#{:02x}{:02x}{:02x}", byte(c.r), byte(c.g), byte(c.b));
}

// Linear interpolation along evenly spaced colour stops, t in [0, 1].
template <size_t N>
Rgb along(const std::array<Rgb, N>& stops, double t) {
  const double x = std::clamp(t, 0.0, 1.0) * double(N - 1);
  const size_t i = std::min(size_t(x), N - 2);
  const double f = x - double(i);
  const Rgb &a = stops[i], &b = stops[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

// ColorBrewer's OrRd: pale for a small share, dark red for all of it. The square root
// spreads the small shares, where most functions are.
constexpr std::array<Rgb, 8> kHeat = {{{255, 247, 236},
                                       {254, 232, 200},
                                       {253, 212, 158},
                                       {253, 187, 132},
                                       {252, 141, 89},
                                       {239, 101, 72},
                                       {215, 48, 31},
                                       {153, 0, 0}}};
constexpr std::array<Rgb, 3> kEdgeHeat = {{{170, 170, 170}, {215, 110, 80}, {153, 0, 0}}};

double spread(double share) { return std::sqrt(std::clamp(share, 0.0, 1.0)); }

// WCAG relative luminance of an sRGB colour.
double luminance(const Rgb& c) {
  auto linear = [](double v) {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

// Black or white, whichever contrasts more with the fill: the text of every box stays
// legible whatever its heat.
const char* text_color(const Rgb& fill) {
  const double l = luminance(fill);
  return (1.05 / (l + 0.05)) > ((l + 0.05) / 0.05) ? "#ffffff" : "#000000";
}

Rgb heat_color(double share) { return along(kHeat, spread(share)); }

// Each edge's rank distance (dot's minlen): 1, except that a caller's edges into leaves
// (functions that call no shown function) alternate between 1, 2 and 3 ranks (7-12 leaves: two
// ranks, more: three), as Graphviz's `unflatten -l` staggers them: one rank of many small
// leaves otherwise makes the picture wide and flat, too small to read once fitted to a window.
// A few leaves stay in one rank: staggering them lengthens edges for little width.
std::vector<int> staggered_lengths(const CallGraph& g) {
  auto ranks = [](const GraphEdge& e) { return e.caller != e.callee && !e.back; };
  std::vector<bool> calls(g.nodes.size());
  for (const GraphEdge& e : g.edges)
    if (ranks(e)) calls[e.caller] = true;
  std::vector<std::vector<size_t>> into_leaves(g.nodes.size());  // by caller, callees by rank
  for (size_t i = 0; i < g.edges.size(); ++i)
    if (ranks(g.edges[i]) && !calls[g.edges[i].callee]) into_leaves[g.edges[i].caller].push_back(i);
  std::vector<int> length(g.edges.size(), 1);
  for (const std::vector<size_t>& edges : into_leaves) {
    const size_t levels = std::min<size_t>(3, (edges.size() + 5) / 6);
    for (size_t j = 0; j < edges.size(); ++j) length[edges[j]] = 1 + int(j % levels);
  }
  return length;
}

class DotWriter {
 public:
  DotWriter(const Analysis& a, const CallGraph& g, const CallGraphOptions& o)
      : a_(a), g_(g), o_(o), sampled_(a.stats().has_samples) {
    for (const GraphNode& n : g.nodes) max_self_ = std::max(max_self_, n.self);
  }

  std::string write() {
    out_ += "digraph callgraph {\n";
    const bool dense = g_.edges.size() > kDenseEdges;
    // The legend is the graph's label: Graphviz puts it above the drawing, outside every node.
    out_ += fmt::format(
        "  graph [fontname=\"{0}\", rankdir=TB, nodesep=0.25, ranksep=0.5, bgcolor=white, "
        "tooltip=\"callprof call graph\", labelloc=t, labeljust=l, fontsize={2}, label=<{3}>{1}];\n"
        "  node [fontname=\"{0}\", shape=box, style=\"rounded,filled\", margin=\"0.15,0.1\", penwidth=1];\n"
        "  edge [fontname=\"{0}\", fontsize={4}, fontcolor=\"#333333\"];\n",
        kFont, dense ? ", splines=line, nslimit=0.2, nslimit1=0.2" : "", kLegendFontPt, legend(dense), kEdgeFontPt);
    for (size_t i = 0; i < g_.nodes.size(); ++i) node(i);
    const std::vector<int> lengths = staggered_lengths(g_);
    for (size_t i = 0; i < g_.edges.size(); ++i) edge(g_.edges[i], lengths[i]);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  std::string amount(uint64_t v) const {
    return g_.metric == Metric::Samples ? format_count(v) + (v == 1 ? " sample" : " samples") : format_duration(v);
  }
  std::string name(FunctionId f, size_t max_chars) const { return dot_escape(safe_text(a_.name(f), max_chars)); }

  std::string legend(bool dense) const;
  std::vector<std::string> legend_lines(bool dense) const;
  std::string color_scale() const;
  void node(size_t i);
  void edge(const GraphEdge& e, int length);
  std::string edge_label(const GraphEdge& e) const;
  std::string edge_tooltip(const GraphEdge& e) const;

  const Analysis& a_;
  const CallGraph& g_;
  const CallGraphOptions& o_;
  const bool sampled_;
  uint64_t max_self_ = 0;
  std::string out_;
};

std::string metric_title(Metric m) {
  switch (m) {
    case Metric::CpuNs:
      return "CPU time";
    case Metric::OffCpuNs:
      return "off-CPU time";
    case Metric::Samples:
      return "samples";
    default:
      return "total (wall) time";
  }
}

std::vector<std::string> DotWriter::legend_lines(bool dense) const {
  const Profile& p = a_.profile();
  std::vector<std::string> lines;
  lines.push_back("callprof call graph");
  if (!p.meta.command.empty()) lines.push_back("command: " + safe_text(p.meta.command, 100));
  std::string mode = p.meta.mode.empty() ? "" : safe_text(p.meta.mode.text(), 20) + " profile, ";
  if (p.meta.sampling && sampled_)
    mode +=
        fmt::format("{} samples at {} Hz, ", format_count(a_.total(Metric::Samples)), p.meta.sampling->frequency_hz);
  lines.push_back(fmt::format("{}metric: {}, {} in all", mode, metric_title(g_.metric), amount(g_.grand_total)));
  if (g_.hidden() == 0)
    lines.push_back(fmt::format("all {} functions shown", g_.nodes.size()));
  else
    lines.push_back(
        fmt::format("{} of {} functions shown; {} below {} hidden (their time is in their callers' "
                    "totals and in dashed edges)",
                    g_.nodes.size(), g_.functions, g_.hidden(), amount(g_.threshold)));
  if (g_.hidden_edges > 0)
    lines.push_back(fmt::format("{} lighter edge{} hidden (each {} or less)", g_.hidden_edges,
                                g_.hidden_edges == 1 ? "" : "s", amount(g_.hidden_edge_max)));
  if (g_.nodes_capped || g_.edges_capped)
    lines.push_back(fmt::format("capped for the layout at {} functions and {} edges", kMaxGraphNodes, kMaxGraphEdges));
  if (dense) lines.push_back("dense graph: straight edges, coarser placement");
  if (!a_.options().focus.empty()) lines.push_back("focus: " + safe_text(a_.options().focus, 100));
  if (!a_.options().hide.empty()) lines.push_back("hidden by --hide: " + safe_text(a_.options().hide, 100));
  static constexpr const char* kWidths[] = {"log of", "proportional to", "not scaled by"};
  lines.push_back(fmt::format("box: self and total, % of all; text size: self time; edge width {} the time along it",
                              kWidths[int(o_.edge_width)]));
  return lines;
}

// One row of swatches: the fill of a box at a few shares of the grand total.
std::string DotWriter::color_scale() const {
  static constexpr std::pair<double, const char*> kStops[] = {{0, "0%"},    {0.01, "1%"}, {0.05, "5%"},
                                                              {0.2, "20%"}, {0.5, "50%"}, {1, "100%"}};
  std::string row = fmt::format("<td>colour: {} share of all</td>", o_.heat == HeatBasis::Total ? "total" : "self");
  for (const auto& [share, text] : kStops) {
    const Rgb fill = heat_color(share);
    row += fmt::format("<td bgcolor=\"{}\"><font color=\"{}\">&nbsp;{}&nbsp;</font></td>", hex(fill), text_color(fill),
                       text);
  }
  return "<table border=\"0\" cellspacing=\"1\" cellpadding=\"1\"><tr>" + row + "</tr></table>";
}

// An HTML-like table (Graphviz's own markup, not the page's): a box with one left-aligned
// row per line, then the colour scale. href and id give the SVG an anchor <g id="a_legend">
// that tests and the web report find it by (Graphviz writes a table's id only with a link).
// An empty column on the right gives the lines room: browsers draw them up to 2 % wider than
// Graphviz measured (a box's margin absorbs that; a left-aligned line would cross the border).
std::string DotWriter::legend(bool dense) const {
  const std::vector<std::string> lines = legend_lines(dense);
  std::string rows;
  for (const std::string& l : lines) {
    rows += "<tr><td align=\"left\">" + html_label_escape(l) + "</td>";
    if (&l == &lines.front()) rows += fmt::format("<td rowspan=\"{}\" width=\"16\"></td>", lines.size() + 1);
    rows += "</tr>";
  }
  rows += "<tr><td align=\"left\">" + color_scale() + "</td></tr>";
  return "<table id=\"legend\" href=\"#legend\" tooltip=\"what this graph shows\" border=\"1\" cellborder=\"0\" "
         "cellspacing=\"0\" cellpadding=\"3\" bgcolor=\"#f7f7f7\" color=\"#999999\">" +
         rows + "</table>";
}

void DotWriter::node(size_t i) {
  const GraphNode& n = g_.nodes[i];
  const FunctionRow& r = n.row;
  const uint64_t grand = g_.grand_total;
  std::string label = name(r.function, kLabelChars);
  // Numbers and units hold no character DOT or Graphviz would interpret: no escaping.
  label += fmt::format("\\nself {} ({})\\ntotal {} ({})", amount(n.self), format_share(n.self, grand), amount(n.total),
                       format_share(n.total, grand));
  if (!sampled_)
    label += "\\n" + format_count(r.calls) + (r.calls == 1 ? " call" : " calls");
  else if (g_.metric != Metric::Samples)
    label += "\\n" + format_count(r.total_samples) + " samples";
  std::string tip = dot_escape(safe_text(a_.full_name(r.function), kTooltipChars));
  if (const std::string_view module = a_.module(r.function); !module.empty())
    tip += "\\nmodule: " + dot_escape(safe_text(module, 200));
  if (!sampled_) tip += fmt::format("\\ncalls: {}", format_count(r.calls));
  if (r.recursive_calls) tip += fmt::format(" ({} recursive)", format_count(r.recursive_calls));
  tip += fmt::format("\\nself: {} ({})\\ntotal: {} ({})", amount(n.self), format_share(n.self, grand), amount(n.total),
                     format_share(n.total, grand));
  if (a_.cpu_measured())
    tip += fmt::format("\\nCPU: {}, off-CPU: {} (self)", format_duration(r.cpu_ns), format_duration(r.offcpu_ns));
  if (n.entry_value) tip += fmt::format("\\nnot called by a shown function: {}", amount(n.entry_value));
  const Rgb fill = heat_color(n.heat);
  const double self_share = max_self_ ? double(n.self) / double(max_self_) : 0;
  out_ += fmt::format(
      "  n{} [id=\"fn{}\", label=\"{}\", tooltip=\"{}\", fillcolor=\"{}\", color=\"{}\", "
      "fontcolor=\"{}\", fontsize={:.1f}];\n",
      i, r.function, label, tip, hex(fill), hex(along(kHeat, std::min(1.0, spread(n.heat) + 0.3))), text_color(fill),
      kMinNodeFontPt + (kMaxNodeFontPt - kMinNodeFontPt) * std::sqrt(self_share));
}

std::string DotWriter::edge_label(const GraphEdge& e) const {
  // Sampled profiles count no calls: their recursion shows as its depth alone.
  const std::string recursion =
      sampled_ ? fmt::format("↻ recursive, depth {}", e.max_recursion)
               : fmt::format("↻ {} recursive, depth {}", format_count(e.recursive_calls), e.max_recursion);
  // Only re-entries (f -> f, or back into a function already active): no time flowed here.
  if (e.max_recursion > 0 && e.value == 0 && (sampled_ || e.recursive_calls == e.calls))
    return sampled_ ? recursion
                    : fmt::format("↻ {} recursive calls, depth {}", format_count(e.recursive_calls), e.max_recursion);
  std::string label = amount(e.value);
  if (!sampled_) label += "\\n" + format_count(e.calls) + (e.calls == 1 ? " call" : " calls");
  if (e.max_recursion > 0) label += "\\n" + recursion;
  return label;
}

std::string DotWriter::edge_tooltip(const GraphEdge& e) const {
  const FunctionId from = g_.nodes[e.caller].row.function, to = g_.nodes[e.callee].row.function;
  std::string tip = name(from, kEdgeNameChars) + (e.folded ? " ⇢ " : " → ") + name(to, kEdgeNameChars);
  if (!sampled_) tip += fmt::format("\\n{} call{}", format_count(e.calls), e.calls == 1 ? "" : "s");
  if (e.recursive_calls)
    tip += fmt::format(" ({} recursive: {} was already active, up to {} level{} deep)", format_count(e.recursive_calls),
                       name(to, 40), e.max_recursion, e.max_recursion == 1 ? "" : "s");
  tip += fmt::format("\\n{} ({}) flowed into {}", amount(e.value), format_share(e.value, g_.grand_total), name(to, 40));
  if (sampled_ && g_.metric != Metric::Samples)
    tip += fmt::format(" ({} samples)", format_count(e.total[Metric::Samples]));
  if (e.folded) {
    tip += "\\nthrough hidden functions, called by";
    for (const auto& [f, v] : e.via) tip += fmt::format("\\n  {} ({})", name(f, 60), amount(v));
    if (e.via_callers > e.via.size()) tip += fmt::format("\\n  and {} more", e.via_callers - e.via.size());
  }
  return tip;
}

void DotWriter::edge(const GraphEdge& e, int length) {
  const double share = g_.grand_total ? double(e.value) / double(g_.grand_total) : 0;
  // A back edge (recursion through other functions) takes no part in ranking: dot would
  // otherwise reverse one edge of the cycle by the DOT text's order, maybe the wrong one.
  out_ += fmt::format(
      "  n{} -> n{} [label=\"{}\", tooltip=\"{}\", penwidth={:.2f}, arrowsize={:.2f}, weight={}, "
      "color=\"{}\"{}{}{}];\n",
      e.caller, e.callee, edge_label(e), edge_tooltip(e), e.width, 0.5 + 0.05 * e.width, 1 + int(std::lround(e.width)),
      hex(along(kEdgeHeat, spread(share))), e.folded ? ", style=dashed" : "", e.back ? ", constraint=false" : "",
      length > 1 ? fmt::format(", minlen={}", length) : "");
}

}  // namespace

std::string call_graph_dot(const Analysis& analysis, const CallGraph& graph, const CallGraphOptions& options) {
  return DotWriter(analysis, graph, options).write();
}

}  // namespace callprof

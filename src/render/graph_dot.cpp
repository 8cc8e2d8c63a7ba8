// The call graph in Graphviz's language: one node per shown function (label: name, self,
// total, calls; fill: heat), one edge per caller -> callee (label: time and calls; width:
// from the model; dashed through hidden functions), and a legend node saying what was
// profiled, the metric and the threshold. Every profile string passes safe_text + dot_escape.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "render/call_graph.h"
#include "render/graph_text.h"

namespace callprof {
namespace {

constexpr size_t kLabelChars = 60;     // a node's name in its box
constexpr size_t kTooltipChars = 1000;  // the full name on hover
constexpr size_t kEdgeNameChars = 120;  // names in an edge's tooltip
constexpr const char* kFont = "Helvetica,Arial,sans-serif";
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
constexpr std::array<Rgb, 8> kHeat = {{{255, 247, 236}, {254, 232, 200}, {253, 212, 158}, {253, 187, 132},
                                       {252, 141, 89}, {239, 101, 72}, {215, 48, 31}, {153, 0, 0}}};
constexpr std::array<Rgb, 3> kEdgeHeat = {{{170, 170, 170}, {215, 110, 80}, {153, 0, 0}}};

double spread(double share) { return std::sqrt(std::clamp(share, 0.0, 1.0)); }

class DotWriter {
 public:
  DotWriter(const Analysis& a, const CallGraph& g, const CallGraphOptions& o)
      : a_(a), g_(g), o_(o), sampled_(a.stats().has_samples) {
    for (const GraphNode& n : g.nodes) max_self_ = std::max(max_self_, n.self);
  }

  std::string write() {
    out_ += "digraph callgraph {\n";
    const bool dense = g_.edges.size() > kDenseEdges;
    out_ += fmt::format(
        "  graph [fontname=\"{0}\", rankdir=TB, nodesep=0.3, ranksep=0.5, bgcolor=white, "
        "tooltip=\"callprof call graph\"{1}];\n"
        "  node [fontname=\"{0}\", shape=box, style=\"rounded,filled\", margin=\"0.15,0.06\", penwidth=1];\n"
        "  edge [fontname=\"{0}\", fontsize=9, fontcolor=\"#333333\"];\n",
        kFont, dense ? ", splines=line, nslimit=0.2, nslimit1=0.2" : "");
    legend(dense);
    for (size_t i = 0; i < g_.nodes.size(); ++i) node(i);
    for (const GraphEdge& e : g_.edges) edge(e);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  std::string amount(uint64_t v) const {
    return g_.metric == Metric::Samples ? format_count(v) + (v == 1 ? " sample" : " samples") : format_duration(v);
  }
  std::string name(FunctionId f, size_t max_chars) const { return dot_escape(safe_text(a_.name(f), max_chars)); }

  void legend(bool dense);
  void node(size_t i);
  void edge(const GraphEdge& e);
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
    case Metric::CpuNs: return "CPU time";
    case Metric::OffCpuNs: return "off-CPU time";
    case Metric::Samples: return "samples";
    default: return "total (wall) time";
  }
}

void DotWriter::legend(bool dense) {
  const Profile& p = a_.profile();
  std::vector<std::string> lines;
  lines.push_back("callprof call graph");
  if (!p.meta.command.empty()) lines.push_back("command: " + safe_text(p.meta.command, 100));
  std::string mode = p.meta.mode.empty() ? "" : safe_text(p.meta.mode, 20) + " profile, ";
  if (p.meta.sampling && sampled_)
    mode += fmt::format("{} samples at {} Hz, ", format_count(a_.total(Metric::Samples)), p.meta.sampling->frequency_hz);
  lines.push_back(fmt::format("{}metric: {}, {} in all", mode, metric_title(g_.metric), amount(g_.grand_total)));
  if (g_.hidden() == 0)
    lines.push_back(fmt::format("all {} functions shown", g_.nodes.size()));
  else
    lines.push_back(fmt::format("{} of {} functions shown; {} below {} hidden (their time is in their callers' "
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
  lines.push_back(fmt::format("box: self and total, % of all; colour: {} share; edge width {} the time along it",
                              o_.heat == HeatBasis::Total ? "total" : "self", kWidths[int(o_.edge_width)]));
  std::string label;
  for (const std::string& l : lines) label += dot_escape(l) + "\\l";
  out_ += fmt::format("  legend [shape=note, style=filled, fillcolor=\"#f7f7f7\", color=\"#999999\", fontsize=12, "
                      "label=\"{}\", tooltip=\"what this graph shows\"];\n",
                      label);
}

void DotWriter::node(size_t i) {
  const GraphNode& n = g_.nodes[i];
  const FunctionRow& r = n.row;
  const uint64_t grand = g_.grand_total;
  std::string label = name(r.function, kLabelChars);
  // Numbers and units hold no character DOT or Graphviz would interpret: no escaping.
  label += fmt::format("\\nself {} ({})\\ntotal {} ({})", amount(n.self), format_share(n.self, grand),
                       amount(n.total), format_share(n.total, grand));
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
  if (a_.cpu_measured()) tip += fmt::format("\\nCPU: {}, off-CPU: {} (self)", format_duration(r.cpu_ns), format_duration(r.offcpu_ns));
  if (n.entry_value) tip += fmt::format("\\nnot called by a shown function: {}", amount(n.entry_value));
  const double heat = spread(n.heat);
  const double self_share = max_self_ ? double(n.self) / double(max_self_) : 0;
  out_ += fmt::format("  n{} [id=\"fn{}\", label=\"{}\", tooltip=\"{}\", fillcolor=\"{}\", color=\"{}\", "
                      "fontcolor=\"{}\", fontsize={:.1f}];\n",
                      i, r.function, label, tip, hex(along(kHeat, heat)), hex(along(kHeat, std::min(1.0, heat + 0.3))),
                      heat > 0.72 ? "#ffffff" : "#000000", 10 + 8 * std::sqrt(self_share));
}

std::string DotWriter::edge_label(const GraphEdge& e) const {
  // Sampled profiles count no calls: their recursion shows as its depth alone.
  const std::string recursion = sampled_ ? fmt::format("↻ recursive, depth {}", e.max_recursion)
                                         : fmt::format("↻ {} recursive, depth {}", format_count(e.recursive_calls),
                                                       e.max_recursion);
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
  if (!sampled_) tip += fmt::format("\\n{} calls", format_count(e.calls));
  if (e.recursive_calls)
    tip += fmt::format(" ({} recursive: {} was already active, up to {} level{} deep)", format_count(e.recursive_calls),
                       name(to, 40), e.max_recursion, e.max_recursion == 1 ? "" : "s");
  tip += fmt::format("\\n{} ({}) flowed into {}", amount(e.value), format_share(e.value, g_.grand_total), name(to, 40));
  if (sampled_ && g_.metric != Metric::Samples) tip += fmt::format(" ({} samples)", format_count(e.total[Metric::Samples]));
  if (e.folded) {
    tip += "\\nthrough hidden functions, called by";
    for (const auto& [f, v] : e.via) tip += fmt::format("\\n  {} ({})", name(f, 60), amount(v));
    if (e.via_callers > e.via.size()) tip += fmt::format("\\n  and {} more", e.via_callers - e.via.size());
  }
  return tip;
}

void DotWriter::edge(const GraphEdge& e) {
  const double share = g_.grand_total ? double(e.value) / double(g_.grand_total) : 0;
  out_ += fmt::format("  n{} -> n{} [label=\"{}\", tooltip=\"{}\", penwidth={:.2f}, arrowsize={:.2f}, weight={}, "
                      "color=\"{}\"{}];\n",
                      e.caller, e.callee, edge_label(e), edge_tooltip(e), e.width, 0.5 + 0.05 * e.width,
                      1 + int(std::lround(e.width)), hex(along(kEdgeHeat, spread(share))),
                      e.folded ? ", style=dashed" : "");
}

}  // namespace

std::string call_graph_dot(const Analysis& analysis, const CallGraph& graph, const CallGraphOptions& options) {
  return DotWriter(analysis, graph, options).write();
}

}  // namespace callprof

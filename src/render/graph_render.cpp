// The call graph's entry points: option names, the graph of an analysis (checked against
// what the profile measured), and the whole picture through Graphviz.
#include <fmt/format.h>

#include <cctype>
#include <cstdio>

#include "render/call_graph.h"
#include "render/graph_layout.h"
#include "render/graph_zoom_script.h"

namespace callprof {

std::optional<GraphFormat> parse_graph_format(std::string_view name) {
  if (name == "svg") return GraphFormat::Svg;
  if (name == "dot" || name == "gv") return GraphFormat::Dot;
  if (name == "png") return GraphFormat::Png;
  return std::nullopt;
}

std::optional<GraphFormat> graph_format_of_path(std::string_view path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return std::nullopt;
  std::string ext(path.substr(dot + 1));
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return parse_graph_format(ext);
}

std::optional<EdgeWidth> parse_edge_width(std::string_view name) {
  if (name == "log") return EdgeWidth::Log;
  if (name == "linear") return EdgeWidth::Linear;
  if (name == "uniform") return EdgeWidth::Uniform;
  return std::nullopt;
}

std::optional<Metric> parse_graph_metric(std::string_view name) {
  if (name == "total" || name == "wall") return Metric::WallNs;
  if (name == "cpu") return Metric::CpuNs;
  if (name == "offcpu") return Metric::OffCpuNs;
  if (name == "samples") return Metric::Samples;
  return std::nullopt;
}

std::string_view graph_metric_name(Metric m) {
  switch (m) {
    case Metric::CpuNs:
      return "cpu";
    case Metric::OffCpuNs:
      return "offcpu";
    case Metric::Samples:
      return "samples";
    default:
      return "total";
  }
}

std::optional<HeatBasis> parse_heat_basis(std::string_view name) {
  if (name == "total") return HeatBasis::Total;
  if (name == "self") return HeatBasis::Self;
  return std::nullopt;
}

Result<CallGraph> analysis_call_graph(const Analysis& analysis, const CallGraphOptions& options) {
  const Metric m = options.metric;
  if (m != Metric::WallNs && m != Metric::CpuNs && m != Metric::OffCpuNs && m != Metric::Samples)
    return make_error("the call graph's metric is one of total, cpu, offcpu, samples");
  if ((m == Metric::CpuNs || m == Metric::OffCpuNs) && !analysis.cpu_measured())
    return make_error(fmt::format("--metric {}: the profile did not measure the CPU/off-CPU split (use --metric total)",
                                  graph_metric_name(m)));
  if (m == Metric::Samples && !analysis.stats().has_samples)
    return make_error("--metric samples: the profile is not sampled (use --metric total)");
  if (!(options.node_fraction >= 0 && options.node_fraction <= 1))
    return make_error("--node-fraction must be between 0 and 1");
  if (!(options.edge_fraction >= 0 && options.edge_fraction <= 1))
    return make_error("--edge-fraction must be between 0 and 1");
  return build_call_graph(analysis.tree(), analysis.nodes(), analysis.functions(), options);
}

Result<std::string> render_call_graph(const Analysis& analysis, const CallGraphOptions& options, GraphFormat format) {
  auto graph = analysis_call_graph(analysis, options);
  if (!graph) return graph.error();
  return render_call_graph(analysis, *graph, options, format);
}

Result<std::string> render_call_graph(const Analysis& analysis, const CallGraph& graph, const CallGraphOptions& options,
                                      GraphFormat format) {
  return graphviz_render(call_graph_dot(analysis, graph, options), format);
}

namespace {

// The value of attribute `name` in `tag` (one start tag's text), and where it starts; npos
// when the tag has no such attribute.
std::pair<size_t, std::string_view> attribute(std::string_view tag, std::string_view name) {
  const std::string key = " " + std::string(name) + "=\"";
  const size_t at = tag.find(key);
  const size_t end = at == std::string_view::npos ? at : tag.find('"', at + key.size());
  if (end == std::string_view::npos) return {std::string_view::npos, {}};
  return {at, tag.substr(at + key.size(), end - at - key.size())};
}

// Removes attribute `name` (with its leading space) from `tag`, if present.
void erase_attribute(std::string& tag, std::string_view name) {
  const auto [at, value] = attribute(tag, name);
  if (at != std::string_view::npos) tag.erase(at, name.size() + 4 + value.size());
}

}  // namespace

std::string fit_svg_to_window(std::string svg) {
  const size_t start = svg.find("<svg");
  const size_t end = start == std::string::npos ? start : svg.find('>', start);
  const size_t close = svg.rfind("</svg>");
  if (end == std::string::npos || close == std::string::npos || close < end) return svg;
  std::string tag = svg.substr(start, end - start);
  const std::string view_box(attribute(tag, "viewBox").second);
  double x = 0, y = 0, w = 0, h = 0;
  if (std::sscanf(view_box.c_str(), "%lf %lf %lf %lf", &x, &y, &w, &h) != 4 || w <= 0 || h <= 0) return svg;
  for (const char* name : {"width", "height", "preserveAspectRatio"}) erase_attribute(tag, name);
  tag += " width=\"100%\" height=\"100%\" preserveAspectRatio=\"xMidYMin meet\"";
  svg.insert(close, fmt::format("<script type=\"text/ecmascript\"><![CDATA[\n{}]]></script>\n", graph_zoom_script()));
  return svg.replace(start, end - start, tag);
}

std::string_view svg_element(std::string_view svg) {
  const size_t start = svg.find("<svg");
  return start == std::string_view::npos ? svg : svg.substr(start);
}

}  // namespace callprof

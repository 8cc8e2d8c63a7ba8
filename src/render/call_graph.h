// The call graph picture (`callprof graph`, and the web report's graph tab): the analysis's
// functions above a threshold as heat-coloured nodes, caller -> callee edges as wide as the
// log of the time along them, laid out by Graphviz's library (libgvc). docs/graph.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "graph/call_graph.h"
#include "query/query.h"
#include "util/result.h"

namespace callprof {

// Svg: a standalone SVG document (XML prolog and DOCTYPE, as Graphviz writes it).
// Dot: the graph in Graphviz's language, not laid out (for `dot`, xdot, other tools).
// Png: a bitmap, through Graphviz's cairo or gd plugin (loaded from Graphviz's plugin
// configuration; SVG and DOT need no configuration).
enum class GraphFormat { Svg, Dot, Png };

std::optional<GraphFormat> parse_graph_format(std::string_view name);  // "svg", "dot", "png"
// By a file name's extension (.svg, .dot, .gv, .png); nullopt for any other.
std::optional<GraphFormat> graph_format_of_path(std::string_view path);
std::optional<EdgeWidth> parse_edge_width(std::string_view name);  // "log", "linear", "uniform"
// "total" (wall time), "cpu", "offcpu", "samples".
std::optional<Metric> parse_graph_metric(std::string_view name);
std::string_view graph_metric_name(Metric m);
std::optional<HeatBasis> parse_heat_basis(std::string_view name);  // "total", "self"

// A box's text size grows with its self time between these (points), so the hot spots stand
// out and the smallest box stays readable.
inline constexpr double kMinNodeFontPt = 12;
inline constexpr double kMaxNodeFontPt = 18;

// The graph as data for the analysis; an error when the profile lacks the metric (CPU time
// that was not measured, samples of an exact profile) or an option is out of range.
Result<CallGraph> analysis_call_graph(const Analysis& analysis, const CallGraphOptions& options);

// The graph in Graphviz's language: labels, tooltips, colours, widths, the legend. Every name
// from the profile is made inert and shortened (render/graph_text.h).
std::string call_graph_dot(const Analysis& analysis, const CallGraph& graph, const CallGraphOptions& options);

// The whole picture: analysis_call_graph, call_graph_dot, then Graphviz's layout and
// renderer for Svg and Png, as Graphviz made it. `callprof graph` fits the SVG it writes to
// its window (fit_svg_to_window); the web report embeds it as it is (svg_element strips its
// prolog for inline use) and sizes and zooms it itself.
Result<std::string> render_call_graph(const Analysis& analysis, const CallGraphOptions& options, GraphFormat format);
// The picture of a graph analysis_call_graph made (for callers that report on it first).
Result<std::string> render_call_graph(const Analysis& analysis, const CallGraph& graph, const CallGraphOptions& options,
                                      GraphFormat format);

// Graphviz's SVG with its fixed size (width="Wpt" height="Hpt") replaced by 100 % of the
// window, the viewBox kept and centred at the top (preserveAspectRatio), and the pan and zoom
// script added. The document is unchanged when its root has no viewBox.
std::string fit_svg_to_window(std::string svg);

// The <svg ...>...</svg> element of an SVG document (for embedding in HTML).
std::string_view svg_element(std::string_view svg);

}  // namespace callprof

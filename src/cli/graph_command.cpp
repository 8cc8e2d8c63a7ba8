// `callprof graph`: the call graph picture (SVG, DOT or PNG) of a profile.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/output_file.h"
#include "cli/selection_options.h"
#include "render/call_graph.h"
#include "trace/profile_file.h"

namespace callprof::cli {
namespace {

struct GraphArgs {
  std::string input = "callprof.data";
  std::string output;  // "" or "-": stdout
  std::string format;  // "" = from the output's extension, else svg
  std::string edge_width = "log", metric = "total", heat = "self";
  size_t nodes = 30;
  double node_fraction = 0, edge_fraction = 0;
  std::optional<size_t> edges;
  SelectionOptions selection;
};

Result<GraphFormat> resolve_format(const GraphArgs& a) {
  if (!a.format.empty()) {
    const auto f = parse_graph_format(a.format);
    if (!f) return make_error(fmt::format("unknown --format '{}' (valid: svg, dot, png)", a.format));
    return *f;
  }
  if (a.output.empty() || a.output == "-") return GraphFormat::Svg;
  const auto f = graph_format_of_path(a.output);
  if (!f)
    return make_error(fmt::format("cannot tell the format of '{}' (use .svg, .dot or .png, or --format)", a.output));
  return *f;
}

Result<CallGraphOptions> resolve_options(const GraphArgs& a) {
  CallGraphOptions o;
  const auto width = parse_edge_width(a.edge_width);
  if (!width) return make_error(fmt::format("unknown --edge-width '{}' (valid: log, linear, uniform)", a.edge_width));
  const auto metric = parse_graph_metric(a.metric);
  if (!metric) return make_error(fmt::format("unknown --metric '{}' (valid: total, cpu, offcpu, samples)", a.metric));
  const auto heat = parse_heat_basis(a.heat);
  if (!heat) return make_error(fmt::format("unknown --color-by '{}' (valid: total, self)", a.heat));
  if (!(a.node_fraction >= 0 && a.node_fraction <= 1)) return make_error("--node-fraction must be between 0 and 1");
  if (!(a.edge_fraction >= 0 && a.edge_fraction <= 1)) return make_error("--edge-fraction must be between 0 and 1");
  o.edge_width = *width;
  o.metric = *metric;
  o.heat = *heat;
  o.max_nodes = a.nodes;
  o.node_fraction = a.node_fraction;
  o.max_edges = a.edges;
  o.edge_fraction = a.edge_fraction;
  return o;
}

}  // namespace

Run add_graph(CLI::App& app) {
  auto a = std::make_shared<GraphArgs>();
  app.add_option("-i,--input", a->input, "Profile to read (- for standard input)")
      ->type_name("FILE")
      ->capture_default_str();
  app.add_option("-o,--output", a->output, "File to write: .svg, .dot or .png (default: SVG to standard output)")
      ->type_name("FILE");
  app.add_option("--format", a->format, "svg | dot | png (default: from the output's extension)")->type_name("FORMAT");
  add_count_option(app, "--nodes", a->nodes,
                   "About this many functions show (the rest fold into their callers); 0: all, up to 150");
  add_real_option(app, "--node-fraction", a->node_fraction,
                  "Also hide functions whose total is below this fraction of the whole (e.g. 0.005)", 0, 1)
      ->type_name("FRACTION");
  add_count_option(app, "--edges", a->edges,
                   "At most this many edges, the heaviest (default: 3 per function shown; 0: all, up to 300); each "
                   "function keeps its heaviest caller");
  add_real_option(app, "--edge-fraction", a->edge_fraction, "Also hide edges below this fraction of the whole", 0, 1)
      ->type_name("FRACTION");
  app.add_option("--edge-width", a->edge_width, "log | linear | uniform: how edge width follows the time along it")
      ->type_name("SCALE")
      ->capture_default_str();
  app.add_option("--metric", a->metric, "total (wall time) | cpu | offcpu | samples")
      ->type_name("METRIC")
      ->capture_default_str();
  app.add_option("--color-by", a->heat,
                 "self | total: which share colours a function's box (self: the hot spots are darkest)")
      ->type_name("METRIC")
      ->capture_default_str();
  a->selection.add_to(app);
  app.footer("Example: callprof graph -i prog.callprof -o graph.svg --nodes 40 --focus '^handle_'");
  return [a]() {
    auto format = resolve_format(*a);
    if (!format) return fail(format.error().message);
    auto options = resolve_options(*a);
    if (!options) return fail(options.error().message);
    auto query = a->selection.resolve();
    if (!query) return fail(query.error().message);
    query->keep_thread_trees = false;  // only the analysed tree is read
    auto analysis = analyse_profile(a->input, *query);
    if (!analysis) return fail(analysis.error().message);
    auto graph = analysis_call_graph(*analysis, *options);
    if (!graph) return fail(graph.error().message);
    if (graph->nodes_capped || graph->edges_capped)
      note(
          fmt::format("note: Graphviz's layout takes at most {} functions and {} edges besides each function's "
                      "heaviest caller: {} of {} functions and {} edges shown, {} lighter edges left out",
                      kMaxGraphNodes, kMaxGraphEdges, graph->nodes.size(), graph->functions, graph->edges.size(),
                      graph->hidden_edges));
    auto picture = render_call_graph(*analysis, *graph, *options, *format);
    if (!picture) return fail(picture.error().message);
    // The file is opened on its own: fitted to its window, with the pan and zoom script.
    if (*format == GraphFormat::Svg) *picture = fit_svg_to_window(std::move(*picture));
    if ((a->output.empty() || a->output == "-") && *format == GraphFormat::Png && isatty(fileno(stdout)))
      return fail("not writing a PNG to a terminal (use -o FILE.png)");
    // The whole picture is made before the output is opened: a failure leaves no partial file.
    if (Status s = write_output(a->output, *picture); !s) return fail(s.error().message);
    if (to_file(a->output))
      note(fmt::format("wrote {}: {} of {} functions, {} edges, {}", a->output, graph->nodes.size(), graph->functions,
                       graph->edges.size(), size_text(picture->size())));
    return 0;
  };
}

}  // namespace callprof::cli

// The call graph picture: the DOT that callprof writes (labels, widths, dashed folded edges,
// legend), hostile names rendered inert in well-formed SVG, and Graphviz working from its
// linked-in plugins without its plugin configuration.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "fixtures.h"
#include "render/call_graph.h"
#include "render/graph_layout.h"

namespace callprof {
namespace {

namespace fs = std::filesystem;

Analysis analysis_of(Profile p, QueryOptions q = {}) {
  q.raw = true;
  auto a = Analysis::run(std::move(p), q);
  if (!a) throw std::runtime_error(a.error().message);
  return std::move(*a);
}

FunctionId id_of(const Analysis& a, std::string_view name) {
  for (FunctionId f = 0; f < a.profile().functions.size(); ++f)
    if (a.profile().functions[f].name == name) return f;
  throw std::runtime_error("no function " + std::string(name));
}

std::string dot_of(const Analysis& a, const CallGraphOptions& o = {}) {
  auto g = analysis_call_graph(a, o);
  if (!g) throw std::runtime_error(g.error().message);
  return call_graph_dot(a, *g, o);
}

// The DOT node name ("n3") of a function, from its node line's id="fnF".
std::string node_name(const std::string& dot, FunctionId f) {
  std::smatch m;
  const std::regex line("\\n  (n\\d+) \\[id=\"fn" + std::to_string(f) + "\"");
  if (!std::regex_search(dot, m, line)) throw std::runtime_error("no node for function " + std::to_string(f));
  return m[1];
}

// The attribute list of the edge `from -> to` (the first one when there are two).
std::string edge_line(const std::string& dot, const std::string& from, const std::string& to) {
  const size_t at = dot.find("\n  " + from + " -> " + to + " [");
  if (at == std::string::npos) return "";
  return dot.substr(at + 3, dot.find('\n', at + 1) - at - 3);
}

// xmllint's verdict on a document ("" = well-formed); nullopt when xmllint is missing.
std::optional<std::string> xml_errors(const std::string& document) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) return std::nullopt;
  const fs::path file = fs::temp_directory_path() / ("callprof_graph_test_" + std::to_string(::getpid()) + ".svg");
  std::ofstream(file, std::ios::binary) << document;
  std::string errors;
  if (FILE* p = ::popen(("xmllint --noout '" + file.string() + "' 2>&1").c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) errors.append(buf, n);
    if (::pclose(p) != 0 && errors.empty()) errors = "xmllint failed";
  }
  fs::remove(file);
  return errors;
}

TEST(GraphDot, NodesAndEdgesCarryTheAnalysisNumbers) {
  const Analysis a = analysis_of(testing::counter_example_profile());
  const std::string dot = dot_of(a);
  const std::string B = node_name(dot, id_of(a, "B")), D = node_name(dot, id_of(a, "D"));
  const std::string main = node_name(dot, id_of(a, "main")), A = node_name(dot, id_of(a, "A"));
  // D: 80 calls, 160 ms self and total of 167.05 ms in all (both threads).
  EXPECT_NE(dot.find("label=\"D\\nself 160ms (95.8%)\\ntotal 160ms (95.8%)\\n80 calls\""), std::string::npos) << dot;
  const std::string bd = edge_line(dot, B, D);
  EXPECT_NE(bd.find("label=\"120ms\\n40 calls\""), std::string::npos) << bd;
  EXPECT_EQ(bd.find("dashed"), std::string::npos) << bd;
  // The widest edge, main -> A (162 ms), has the maximum width.
  EXPECT_NE(edge_line(dot, main, A).find("penwidth=10.00"), std::string::npos) << edge_line(dot, main, A);
  EXPECT_NE(dot.find("<tr><td align=\"left\">command: ./counter 40</td></tr>"), std::string::npos) << dot;
  EXPECT_NE(dot.find("all 8 functions shown"), std::string::npos) << dot;
}

TEST(GraphDot, HiddenFunctionsBecomeADashedEdgeAndTheLegendSaysSo) {
  const Analysis a = analysis_of(testing::counter_example_profile());
  const std::string dot = dot_of(a, {.max_nodes = 3});  // main, A, D; B and C fold into A -> D
  const std::string A = node_name(dot, id_of(a, "A")), D = node_name(dot, id_of(a, "D"));
  const std::string ad = edge_line(dot, A, D);
  EXPECT_NE(ad.find("label=\"160ms\\n80 calls\""), std::string::npos) << ad;
  EXPECT_NE(ad.find("style=dashed"), std::string::npos) << ad;
  EXPECT_NE(ad.find("through hidden functions, called by\\n  B (120ms)\\n  C (40.0ms)"), std::string::npos) << ad;
  EXPECT_NE(dot.find("3 of 8 functions shown; 5 below 160ms hidden"), std::string::npos) << dot;
}

TEST(GraphDot, RecursiveEdgesAreMarkedWithTheirCount) {
  const Analysis a =
      analysis_of(testing::folded("main;fib 10\nmain;fib;fib 20 calls=4\nmain;fib;fib;fib 30 calls=8\n"));
  const std::string dot = dot_of(a);
  const std::string fib = node_name(dot, id_of(a, "fib"));
  const std::string loop = edge_line(dot, fib, fib);
  EXPECT_NE(loop.find("↻ 12 recursive calls, depth 2"), std::string::npos) << loop;
}

TEST(GraphDot, SampledProfilesShowSamplesNotCalls) {
  const Analysis a = analysis_of(testing::sampled_profile());
  const std::string dot = dot_of(a);
  EXPECT_EQ(dot.find(" calls"), std::string::npos) << "a sampled profile counts no calls: " << dot;
  EXPECT_NE(dot.find("label=\"compute\\nself 450ms (45.0%)\\ntotal 570ms (57.0%)\\n570 samples\""), std::string::npos)
      << dot;
  const std::string by_samples = dot_of(a, {.metric = Metric::Samples});
  EXPECT_NE(by_samples.find("label=\"compute\\nself 450 samples (45.0%)\\ntotal 570 samples (57.0%)\""),
            std::string::npos)
      << by_samples;
  EXPECT_NE(by_samples.find("metric: samples, 1,000 samples in all"), std::string::npos) << by_samples;
}

TEST(GraphDot, MetricsTheProfileLacksAreErrors) {
  const Analysis sampled = analysis_of(testing::sampled_profile());
  auto cpu = analysis_call_graph(sampled, {.metric = Metric::CpuNs});
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.error().message.find("did not measure the CPU/off-CPU split"), std::string::npos);
  const Analysis exact = analysis_of(testing::exact_profile());
  EXPECT_FALSE(analysis_call_graph(exact, {.metric = Metric::Samples}).ok());
  auto offcpu = analysis_call_graph(exact, {.metric = Metric::OffCpuNs, .max_nodes = 0});
  ASSERT_TRUE(offcpu.ok()) << offcpu.error().message;
  EXPECT_EQ(offcpu->grand_total, 20000000u) << "B's calls of D were off CPU for 20 ms";
  EXPECT_FALSE(analysis_call_graph(exact, {.node_fraction = 2}).ok());
}

const GraphEdge* edge_of(const Analysis& a, const CallGraph& g, std::string_view from, std::string_view to) {
  for (const GraphEdge& e : g.edges)
    if (g.nodes[e.caller].row.function == id_of(a, from) && g.nodes[e.callee].row.function == id_of(a, to)) return &e;
  return nullptr;
}

std::vector<std::string> shown_names(const Analysis& a, const CallGraph& g) {
  std::vector<std::string> names;
  for (const GraphNode& n : g.nodes) names.push_back(a.profile().functions[n.row.function].name);
  return names;
}

// --focus re-roots the analysed tree (pprof's virtual root): the focused function is the top,
// its time is the 100 %, and the functions that only called it (main) are gone, not hidden.
TEST(GraphQuery, FocusGivesAVirtualRoot) {
  QueryOptions q;
  q.focus = "^A$";
  const Analysis a = analysis_of(testing::counter_example_profile(), q);
  auto g = analysis_call_graph(a, {.max_nodes = 0});
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(shown_names(a, *g), (std::vector<std::string>{"A", "D", "B", "C"}));
  EXPECT_EQ(g->functions, 4u) << "main, spawn, worker and E are outside the focus";
  EXPECT_EQ(g->grand_total, 162000000u) << "A's total: B 1 ms, C 1 ms, D 120 + 40 ms";
  const GraphNode& top = g->nodes[0];
  EXPECT_EQ(top.entry_value, 162000000u) << "all of A's time enters from the virtual root";
  EXPECT_DOUBLE_EQ(top.heat, 0.0) << "coloured by self time, and A only calls";
  EXPECT_EQ(g->edges.size(), 4u);
  EXPECT_EQ(edge_of(a, *g, "B", "D")->value, 120000000u);
  EXPECT_EQ(edge_of(a, *g, "C", "D")->calls, 40u);
  const std::string dot = call_graph_dot(a, *g, {.max_nodes = 0});
  EXPECT_NE(dot.find(">focus: ^A$<"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"A\\nself 0 (0%)\\ntotal 162ms (100.0%)\\n1 call\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("not called by a shown function: 162ms"), std::string::npos) << dot;
}

// --hide folds functions into their callers in the analysis itself: the callee's edge is then
// an ordinary (solid) edge from the caller, unlike a function below the graph's threshold;
// hiding the top function makes its callees tops of their own (called from the virtual root).
TEST(GraphQuery, HideFoldsIntoCallersAndCanLeaveSeveralTops) {
  QueryOptions q;
  q.hide = "^(B|C)$";
  const Analysis a = analysis_of(testing::counter_example_profile(), q);
  auto g = analysis_call_graph(a, {.max_nodes = 0});
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->functions, 6u) << "main, A, D, spawn, worker, E";
  const GraphEdge* ad = edge_of(a, *g, "A", "D");
  ASSERT_NE(ad, nullptr);
  EXPECT_FALSE(ad->folded);
  EXPECT_EQ(ad->calls, 80u);
  EXPECT_EQ(ad->value, 160000000u);
  EXPECT_EQ(g->nodes[g->find(id_of(a, "A"))].self, 2000000u) << "B's and C's own time";
  EXPECT_NE(call_graph_dot(a, *g, {}).find(">hidden by --hide: ^(B|C)$<"), std::string::npos);

  q.hide = "^main$";
  const Analysis top = analysis_of(testing::counter_example_profile(), q);
  auto tops = analysis_call_graph(top, {.max_nodes = 0});
  ASSERT_TRUE(tops.ok()) << tops.error().message;
  EXPECT_EQ(tops->grand_total, 167050000u) << "hiding moves time, it removes none";
  EXPECT_EQ(tops->nodes[tops->find(id_of(top, "A"))].entry_value, 162000000u);
  EXPECT_EQ(tops->nodes[tops->find(id_of(top, "spawn"))].entry_value, 50000u);
  EXPECT_EQ(tops->nodes[tops->find(id_of(top, "worker"))].entry_value, 5000000u);
  EXPECT_EQ(tops->find(id_of(top, "main")), SIZE_MAX);
}

// A profile whose names try to break out of the DOT string, the SVG text and the terminal.
Profile hostile_profile() {
  Profile p = testing::counter_example_profile();
  const std::pair<const char*, std::string> names[] = {
      {"A", "<script>alert(1)</script>"},
      {"B", "quote\"back\\slash\\N\nnewline\x1b[31mred"},
      {"C", std::string(10000, 'x') + "END"},
      {"D", "&amp; &lt;b&gt; \xff\xfe bad \xef\xbf\xbf utf8"},
      {"main", "main\u202Eevil"},
  };
  for (const auto& [from, to] : names)
    for (Function& f : p.functions)
      if (f.name == from) f.name = to;
  p.meta.command = "./counter \"--x\" </svg><script>";
  return p;
}

TEST(GraphSvg, HostileNamesRenderInertAndReadable) {
  const Analysis a = analysis_of(hostile_profile());
  auto svg = render_call_graph(a, {}, GraphFormat::Svg);
  ASSERT_TRUE(svg.ok()) << svg.error().message;
  const std::string& s = *svg;
  const auto errors = xml_errors(s);
  if (errors) {
    EXPECT_EQ(*errors, "") << s;
  }
  // Graphviz's SVG has no script (the web report embeds it as it is); fitted to a window for
  // `callprof graph`, its one script is the pan and zoom script, after the drawing.
  EXPECT_EQ(s.find("<script"), std::string::npos);
  const std::string fitted = fit_svg_to_window(s);
  EXPECT_EQ(fitted.find("<script"), fitted.rfind("<script type=\"text/ecmascript\"><![CDATA[\n"));
  EXPECT_NE(fitted.find("<script"), std::string::npos);
  EXPECT_GT(fitted.find("<script"), fitted.rfind("</g>"));
  if (const auto fitted_errors = xml_errors(fitted)) {
    EXPECT_EQ(*fitted_errors, "") << fitted;
  }
  EXPECT_NE(s.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << s;
  EXPECT_EQ(s.find('\x1b'), std::string::npos);
  EXPECT_EQ(s.find('\xff'), std::string::npos);
  EXPECT_EQ(s.find("\xef\xbf\xbf"), std::string::npos);
  EXPECT_EQ(s.find("\u202E"), std::string::npos);
  EXPECT_NE(s.find("newline\\x1b[31mred"), std::string::npos) << "control characters show as escapes";
  EXPECT_NE(s.find("back\\slash\\N\\nnewline"), std::string::npos) << "Graphviz did not expand \\N or \\n: " << s;
  EXPECT_NE(s.find("&amp;amp; &amp;lt;b&amp;gt;"), std::string::npos) << "entities in names stay literal: " << s;
  EXPECT_NE(s.find("main\\u202eevil"), std::string::npos);
  // A 10,000-character name: 60 characters in its box, 1,000 in its tooltip.
  EXPECT_NE(s.find(">" + std::string(29, 'x') + "…" + std::string(27, 'x') + "END<"), std::string::npos) << s;
  EXPECT_EQ(s.find(std::string(1000, 'x')), std::string::npos);
  EXPECT_NE(s.find("xlink:title"), std::string::npos) << "tooltips";
  if (!errors) GTEST_SKIP() << "xmllint not installed (Debian: libxml2-utils): well-formedness not checked";
}

TEST(GraphSvg, IsAWellFormedDocumentWithEveryShownFunction) {
  const Analysis a = analysis_of(testing::cpp_profile());
  auto svg = render_call_graph(a, {}, GraphFormat::Svg);
  ASSERT_TRUE(svg.ok()) << svg.error().message;
  EXPECT_EQ(svg->rfind("<?xml", 0), 0u);
  EXPECT_NE(svg->find(">std::sort&lt;…&gt;<"), std::string::npos) << "short names by default: " << *svg;
  EXPECT_NE(svg->find(">Index&lt;…&gt;::find(int const&amp;) const<"), std::string::npos) << "overloads told apart";
  EXPECT_NE(svg->find("callprof call graph"), std::string::npos);
  EXPECT_EQ(svg_element(*svg).rfind("<svg", 0), 0u);
  EXPECT_EQ(svg_element(*svg).substr(svg_element(*svg).size() - 7), "</svg>\n");
  const auto errors = xml_errors(*svg);
  if (!errors) GTEST_SKIP() << "xmllint not installed (Debian: libxml2-utils): well-formedness not checked";
  EXPECT_EQ(*errors, "");
}

// Debian's libgvc finds plugins through a configuration file (config6a) that only the graphviz
// package or libgvc6's trigger writes, and crashed (2.42) when asked to load one without it.
// A plugin directory without the file: SVG and PNG work; without the bitmap plugin, PNG is
// one clear error.
TEST(GraphSvg, NeedsNoGraphvizPluginConfiguration) {
  const Analysis a = analysis_of(testing::counter_example_profile());
  const fs::path dir = fs::temp_directory_path() / ("callprof_gv_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::setenv("GVBINDIR", dir.c_str(), 1);
  auto svg = render_call_graph(a, {}, GraphFormat::Svg);
  auto no_png = render_call_graph(a, {}, GraphFormat::Png);
  std::error_code ec;
  for (const char* plugin : {"libgvplugin_pango.so.6", "libgvplugin_gd.so.6"})
    fs::create_symlink(fs::path(CALLPROF_GRAPHVIZ_PLUGIN_DIR) / plugin, dir / plugin, ec);
  auto png = render_call_graph(a, {}, GraphFormat::Png);
  ::unsetenv("GVBINDIR");
  fs::remove_all(dir);
  ASSERT_TRUE(svg.ok()) << svg.error().message;
  EXPECT_NE(svg->find("</svg>"), std::string::npos);
  ASSERT_FALSE(no_png.ok());
  EXPECT_NE(no_png.error().message.find("PNG needs a Graphviz bitmap renderer"), std::string::npos)
      << no_png.error().message;
  EXPECT_EQ(no_png.error().message.find('\n'), std::string::npos) << no_png.error().message;
  if (!fs::exists(fs::path(CALLPROF_GRAPHVIZ_PLUGIN_DIR) / "libgvplugin_pango.so.6") &&
      !fs::exists(fs::path(CALLPROF_GRAPHVIZ_PLUGIN_DIR) / "libgvplugin_gd.so.6"))
    GTEST_SKIP() << "no Graphviz bitmap plugin in " << CALLPROF_GRAPHVIZ_PLUGIN_DIR;
  ASSERT_TRUE(png.ok()) << png.error().message;
  EXPECT_EQ(png->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(GraphSvg, PngThroughGraphvizConfiguration) {
  const Analysis a = analysis_of(testing::counter_example_profile());
  auto png = render_call_graph(a, {}, GraphFormat::Png);
  if (!png.ok()) GTEST_SKIP() << "no Graphviz bitmap renderer here: " << png.error().message;
  EXPECT_EQ(png->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(GraphSvg, GraphvizErrorsAreOneLine) {
  auto bad = graphviz_render("digraph { a -> ", GraphFormat::Svg);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("could not read"), std::string::npos) << bad.error().message;
  EXPECT_EQ(bad.error().message.find('\n'), std::string::npos) << bad.error().message;
}

TEST(GraphOptions, Names) {
  EXPECT_EQ(graph_format_of_path("out/x.svg"), GraphFormat::Svg);
  EXPECT_EQ(graph_format_of_path("x.DOT"), GraphFormat::Dot);
  EXPECT_EQ(graph_format_of_path("x.gv"), GraphFormat::Dot);
  EXPECT_EQ(graph_format_of_path("x.png"), GraphFormat::Png);
  EXPECT_EQ(graph_format_of_path("x.pdf"), std::nullopt);
  EXPECT_EQ(graph_format_of_path("dir.svg/x"), std::nullopt);
  EXPECT_EQ(parse_edge_width("linear"), EdgeWidth::Linear);
  EXPECT_EQ(parse_edge_width("wide"), std::nullopt);
  EXPECT_EQ(parse_graph_metric("offcpu"), Metric::OffCpuNs);
  EXPECT_EQ(parse_graph_metric("calls"), std::nullopt);
  EXPECT_EQ(parse_heat_basis("self"), HeatBasis::Self);
}

}  // namespace
}  // namespace callprof

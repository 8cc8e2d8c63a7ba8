// The call graph as a picture people read: the SVG fits its window (viewBox, 100 %, with a pan
// and zoom script that the web report's copy leaves out), the legend lies outside every node in
// the laid-out SVG,
// colour follows self time (the hottest self time is the darkest box), every box's text is at
// least the minimum size and contrasts with its fill, and the edge closing a recursion does
// not rank. The DOT of the counter-example is a golden file (tests/golden/graph/;
// CALLPROF_UPDATE_GOLDEN=1 rewrites it, then review the diff).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "fixtures.h"
#include "golden.h"
#include "render/call_graph.h"
#include "render/graph_zoom_script.h"

namespace callprof {
namespace {

Analysis analysis_of(Profile p) {
  QueryOptions q;
  q.raw = true;
  auto a = Analysis::run(std::move(p), q);
  if (!a) throw std::runtime_error(a.error().message);
  return std::move(*a);
}

std::string dot_of(const Analysis& a, const CallGraphOptions& o = {}) {
  auto g = analysis_call_graph(a, o);
  if (!g) throw std::runtime_error(g.error().message);
  return call_graph_dot(a, *g, o);
}

// The value of `key="..."` or `key=N` in a DOT attribute list.
std::string attribute(const std::string& line, const std::string& key) {
  std::smatch m;
  if (std::regex_search(line, m, std::regex("[ \\[]" + key + "=(\"([^\"]*)\"|([0-9.]+))")))
    return m[2].matched ? m[2].str() : m[3].str();
  return "";
}

// The node lines of a DOT text, by function id.
std::map<FunctionId, std::string> node_lines(const std::string& dot) {
  std::map<FunctionId, std::string> lines;
  const std::regex node("\\n  n\\d+ \\[id=\"fn(\\d+)\"[^\\n]*");
  for (auto it = std::sregex_iterator(dot.begin(), dot.end(), node); it != std::sregex_iterator(); ++it)
    lines[FunctionId(std::stoul((*it)[1]))] = it->str();
  return lines;
}

double luminance(const std::string& hex) {
  auto channel = [&](int at) {
    const double v = std::stoi(hex.substr(at, 2), nullptr, 16) / 255.0;
    return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

double contrast(const std::string& a, const std::string& b) {
  const double x = luminance(a), y = luminance(b);
  return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

// A wide graph: main calls twelve functions, each with a callee, and a recursion f <-> g.
Profile wide_profile() {
  std::string folded;
  for (int i = 0; i < 12; ++i)
    folded += "main;work_" + std::to_string(i) + " " + std::to_string(10 + i) + "\nmain;work_" + std::to_string(i) +
              ";leaf_" + std::to_string(i) + " " + std::to_string(5 * (i + 1)) + " calls=3\n";
  folded += "main;f 10\nmain;f;g 20 calls=2\nmain;f;g;f 5 calls=2\n";
  Profile p = testing::folded(folded);
  p.meta.command = "./wide --a-long-option-that-makes-the-legend-wide=" + std::string(60, 'x');
  return p;
}

TEST(GraphColour, TheHottestSelfTimeIsTheDarkestBox) {
  const Analysis a = analysis_of(testing::counter_example_profile());
  auto g = analysis_call_graph(a, {});
  ASSERT_TRUE(g.ok()) << g.error().message;
  const auto lines = node_lines(call_graph_dot(a, *g, {}));
  ASSERT_EQ(lines.size(), g->nodes.size());
  const GraphNode& hottest = *std::max_element(g->nodes.begin(), g->nodes.end(),
                                               [](const GraphNode& x, const GraphNode& y) { return x.self < y.self; });
  const double darkest = luminance(attribute(lines.at(hottest.row.function), "fillcolor"));
  for (const GraphNode& n : g->nodes) {
    const std::string& line = lines.at(n.row.function);
    if (n.row.function != hottest.row.function)
      EXPECT_GT(luminance(attribute(line, "fillcolor")), darkest) << "darker than the hottest self time: " << line;
    // Larger self time, never lighter: the colour follows self time, not total.
    for (const GraphNode& m : g->nodes)
      if (m.self > n.self)
        EXPECT_LE(luminance(attribute(lines.at(m.row.function), "fillcolor")), luminance(attribute(line, "fillcolor")));
  }
  const std::string total = dot_of(a, {.heat = HeatBasis::Total});
  EXPECT_NE(total.find("colour: total share of all"), std::string::npos) << "--color-by total stays";
}

TEST(GraphText, EveryBoxHasTheMinimumSizeAndContrastsWithItsFill) {
  const Analysis a = analysis_of(wide_profile());
  for (const HeatBasis heat : {HeatBasis::Self, HeatBasis::Total}) {
    const auto lines = node_lines(dot_of(a, {.heat = heat}));
    ASSERT_GE(lines.size(), 20u);
    for (const auto& [f, line] : lines) {
      EXPECT_GE(std::stod(attribute(line, "fontsize")), kMinNodeFontPt) << line;
      EXPECT_LE(std::stod(attribute(line, "fontsize")), kMaxNodeFontPt) << line;
      // WCAG AA for normal text.
      EXPECT_GE(contrast(attribute(line, "fillcolor"), attribute(line, "fontcolor")), 4.5) << line;
    }
  }
}

TEST(GraphLayout, TheEdgeClosingARecursionDoesNotRank) {
  const Analysis a = analysis_of(testing::folded("main;f 10\nmain;f;g 20 calls=2\nmain;f;g;f 5 calls=2\n"));
  const std::string dot = dot_of(a);
  const auto lines = node_lines(dot);
  std::map<std::string, std::string> node_of;  // name -> "nK"
  for (const auto& [f, line] : lines) node_of[a.profile().functions[f].name] = line.substr(3, line.find(' ', 3) - 3);
  auto edge = [&](const char* from, const char* to) {
    const size_t at = dot.find("\n  " + node_of[from] + " -> " + node_of[to] + " [");
    return at == std::string::npos ? std::string() : dot.substr(at, dot.find('\n', at + 1) - at);
  };
  EXPECT_NE(edge("g", "f").find("constraint=false"), std::string::npos) << edge("g", "f");
  EXPECT_EQ(edge("f", "g").find("constraint"), std::string::npos) << edge("f", "g");
  EXPECT_EQ(edge("main", "f").find("constraint"), std::string::npos) << edge("main", "f");
}

TEST(GraphDot, CounterExampleGolden) {
  const Analysis a = analysis_of(testing::counter_example_profile());
  testing::check_golden("counter_example.dot", dot_of(a));
}

// Bounding box of the "x,y" pairs in an SVG path's d or a polygon's points.
struct Box {
  double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

Box box_of(std::string_view shape) {
  Box b;
  const std::string text(shape);
  const std::regex pair("(-?[0-9.]+),(-?[0-9.]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pair); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    b = {std::min(b.x0, x), std::min(b.y0, y), std::max(b.x1, x), std::max(b.y1, y)};
  }
  return b;
}

// The first shape (path or polygon) after `from` in the SVG.
Box first_shape_after(const std::string& svg, size_t from) {
  const size_t at = std::min(svg.find("<path", from), svg.find("<polygon", from));
  return at == std::string::npos ? Box{} : box_of(std::string_view(svg).substr(at, svg.find("/>", at) - at));
}

TEST(GraphSvg, FitsItsWindowAndTheLegendCoversNoNode) {
  const Analysis a = analysis_of(wide_profile());
  auto g = analysis_call_graph(a, {});
  ASSERT_TRUE(g.ok()) << g.error().message;
  auto graphviz = render_call_graph(a, *g, {}, GraphFormat::Svg);
  ASSERT_TRUE(graphviz.ok()) << graphviz.error().message;
  // The web report's copy: Graphviz's SVG element as it is, without a script.
  const std::string_view embedded = svg_element(*graphviz);
  EXPECT_EQ(embedded.find("<script"), std::string::npos) << "the web report's copy has no script";
  EXPECT_EQ(embedded.rfind("<svg", 0), 0u);
  EXPECT_EQ(embedded.substr(embedded.size() - 7), "</svg>\n");
  EXPECT_TRUE(std::regex_search(std::string(embedded.substr(0, embedded.find('>'))),
                                std::regex(" viewBox=\"0.00 0.00 [0-9.]+ [0-9.]+\"")))
      << "the page sizes it from its viewBox";
  // `callprof graph`'s file: fitted to its window, with the pan and zoom script.
  const std::string svg = fit_svg_to_window(*graphviz);
  const std::string root = svg.substr(svg.find("<svg"), svg.find('>', svg.find("<svg")) - svg.find("<svg"));
  EXPECT_NE(root.find(" width=\"100%\" height=\"100%\""), std::string::npos) << root;
  EXPECT_NE(root.find(" preserveAspectRatio=\"xMidYMin meet\""), std::string::npos) << root;
  EXPECT_TRUE(std::regex_search(root, std::regex("viewBox=\"0.00 0.00 [0-9.]+ [0-9.]+\""))) << root;
  EXPECT_EQ(root.find("pt\""), std::string::npos) << "no fixed size left: " << root;
  EXPECT_NE(svg.find("<script type=\"text/ecmascript\"><![CDATA[\n"), std::string::npos) << "pan and zoom";

  const size_t legend_at = svg.find("<g id=\"a_legend\">");
  ASSERT_NE(legend_at, std::string::npos) << svg;
  const Box legend = first_shape_after(svg, legend_at);
  ASSERT_LT(legend.x0, legend.x1);
  size_t nodes = 0;
  for (size_t at = svg.find("class=\"node\""); at != std::string::npos; at = svg.find("class=\"node\"", at + 1)) {
    const Box node = first_shape_after(svg, at);
    ASSERT_LT(node.x0, node.x1);
    EXPECT_FALSE(legend.overlaps(node)) << "the legend covers node " << nodes;
    EXPECT_LT(legend.y1, node.y0) << "the legend is above the drawing";
    ++nodes;
  }
  EXPECT_EQ(nodes, g->nodes.size());
  EXPECT_NE(svg.find(">command: ./wide &#45;&#45;a&#45;long"), std::string::npos) << "the legend's text";
}

TEST(GraphSvg, FitToWindowReplacesTheFixedSize) {
  const std::string in =
      "<?xml?>\n<svg width=\"300pt\" height=\"150pt\"\n viewBox=\"0.00 0.00 300.00 150.00\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n<g/></svg>\n";
  const std::string out = fit_svg_to_window(in);
  EXPECT_EQ(out.rfind("<?xml?>\n<svg\n viewBox=\"0.00 0.00 300.00 150.00\" xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"100%\" height=\"100%\" preserveAspectRatio=\"xMidYMin meet\">\n<g/><script",
                      0),
            0u)
      << out;
  const std::string tail = "]]></script>\n</svg>\n";
  EXPECT_EQ(out.substr(out.size() - tail.size()), tail) << out;
  EXPECT_EQ(out,
            "<?xml?>\n<svg\n viewBox=\"0.00 0.00 300.00 150.00\" xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"100%\" height=\"100%\" preserveAspectRatio=\"xMidYMin meet\">\n<g/><script "
            "type=\"text/ecmascript\"><![CDATA[\n" +
                std::string(graph_zoom_script()) + tail)
      << "the pan and zoom script, nothing else added";
  // svg_element: from the root's start tag to the end, without the prolog (a view of its argument).
  const std::string_view element = svg_element(in);
  EXPECT_EQ(element, in.substr(in.find("<svg")));
  EXPECT_EQ(element.data(), in.data() + in.find("<svg"));
  EXPECT_EQ(svg_element("<g/>"), "<g/>") << "no root: unchanged";
  EXPECT_EQ(fit_svg_to_window("<svg width=\"3pt\"><g/></svg>"), "<svg width=\"3pt\"><g/></svg>") << "no viewBox";
  EXPECT_EQ(fit_svg_to_window("not svg"), "not svg");
}

}  // namespace
}  // namespace callprof

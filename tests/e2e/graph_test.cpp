// `callprof graph` on a recorded program with known truth (gprof_split.c: A calls B and C,
// each calls D 40 times): the SVG is a well-formed XML document naming every function, the
// DOT has the edges with their exact call counts, and with D's callers hidden the path
// A > B|C > D folds into one dashed edge carrying all 80 calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "e2e_support.h"

namespace e2e {
namespace {

class Graph : public E2ETest {
 protected:
  RunResult callprof(std::vector<std::string> args) {
    args.insert(args.begin(), E2E_CALLPROF);
    return run(args, dir());
  }
  std::string read(const std::string& name) {
    std::ifstream in(dir() / name, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

// The DOT node ("n3") whose label starts with the function's name.
std::string node_of(const std::string& dot, const std::string& function) {
  std::smatch m;
  if (!std::regex_search(dot, m, std::regex("\\n  (n\\d+) \\[id=\"fn\\d+\", label=\"" + function + "\\\\n"))) return "";
  return m[1];
}

// The attributes of the edge from -> to, "" when there is none.
std::string edge(const std::string& dot, const std::string& from, const std::string& to) {
  const size_t at = dot.find("\n  " + from + " -> " + to + " [");
  return at == std::string::npos ? "" : dot.substr(at, dot.find('\n', at + 1) - at);
}

TEST_P(Graph, PictureOfTheGprofCounterExample) {
  const RunResult rec = record(build("gprof_split.c"));
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;

  const RunResult svg = callprof({"graph", "-i", "profile.callprof", "-o", "g.svg"});
  ASSERT_EQ(svg.exit, exited(0)) << svg.err;
  // One line saying where the picture went.
  EXPECT_EQ(svg.err.rfind("callprof: wrote g.svg: 5 of 5 functions, 5 edges, ", 0), 0u) << svg.err;
  EXPECT_EQ(std::count(svg.err.begin(), svg.err.end(), '\n'), 1) << svg.err;
  const RunResult xml = run({"/usr/bin/env", "python3", "-c",
                             "import sys, xml.etree.ElementTree as E\n"
                             "root = E.parse(sys.argv[1]).getroot()\n"
                             "print(' '.join(t.text for t in root.iter('{http://www.w3.org/2000/svg}text') if t.text))",
                             (dir() / "g.svg").string()},
                            dir());
  ASSERT_EQ(xml.exit, exited(0)) << "not well-formed XML: " << xml.err;
  for (const char* f : {" main ", " A ", " B ", " C ", " D "})
    EXPECT_NE((" " + xml.out).find(f), std::string::npos) << f << " missing from the SVG's text: " << xml.out;
  EXPECT_NE(xml.out.find("80 calls"), std::string::npos) << xml.out;
  // A file opened on its own: fitted to its window, with the pan and zoom script (one).
  const std::string picture = read("g.svg");
  const std::string root =
      picture.substr(picture.find("<svg"), picture.find('>', picture.find("<svg")) - picture.find("<svg"));
  EXPECT_NE(root.find(" width=\"100%\" height=\"100%\""), std::string::npos) << root;
  EXPECT_NE(picture.find("<script type=\"text/ecmascript\">"), std::string::npos) << "pan and zoom";
  EXPECT_EQ(picture.find("<script"), picture.rfind("<script")) << "one script";

  const RunResult dot = callprof({"graph", "-i", "profile.callprof", "-o", "g.dot"});
  ASSERT_EQ(dot.exit, exited(0)) << dot.err;
  const std::string d = read("g.dot");
  const std::string A = node_of(d, "A"), B = node_of(d, "B"), C = node_of(d, "C"), D = node_of(d, "D");
  ASSERT_FALSE(A.empty() || B.empty() || C.empty() || D.empty()) << d;
  EXPECT_NE(edge(d, B, D).find("\\n40 calls\""), std::string::npos) << d;
  EXPECT_NE(edge(d, C, D).find("\\n40 calls\""), std::string::npos) << d;
  EXPECT_NE(edge(d, A, B).find("\\n1 call\""), std::string::npos) << d;
  EXPECT_EQ(edge(d, B, D).find("dashed"), std::string::npos) << d;
  EXPECT_NE(d.find("all 5 functions shown"), std::string::npos) << d;

  // D (320 ms) outranks B (240 ms) and C (80 ms): with three functions, A ⇢ D is dashed.
  const RunResult folded = callprof({"graph", "-i", "profile.callprof", "--nodes", "3", "--format", "dot"});
  ASSERT_EQ(folded.exit, exited(0)) << folded.err;
  const std::string f = folded.out;
  ASSERT_TRUE(node_of(f, "B").empty() && node_of(f, "C").empty()) << f;
  const std::string ad = edge(f, node_of(f, "A"), node_of(f, "D"));
  EXPECT_NE(ad.find("\\n80 calls\""), std::string::npos) << f;
  EXPECT_NE(ad.find("style=dashed"), std::string::npos) << f;
  EXPECT_NE(f.find("3 of 5 functions shown; 2 below"), std::string::npos) << f;

  // --focus re-roots at B (a virtual root above it): B and what it called, nothing else.
  const RunResult focus = callprof({"graph", "-i", "profile.callprof", "--focus", "^B$", "--format", "dot"});
  ASSERT_EQ(focus.exit, exited(0)) << focus.err;
  const std::string fo = focus.out;
  EXPECT_TRUE(node_of(fo, "A").empty() && node_of(fo, "C").empty() && node_of(fo, "main").empty()) << fo;
  EXPECT_NE(edge(fo, node_of(fo, "B"), node_of(fo, "D")).find("\\n40 calls\""), std::string::npos) << fo;
  EXPECT_NE(fo.find("all 2 functions shown"), std::string::npos) << fo;
  EXPECT_NE(fo.find("focus: ^B$"), std::string::npos) << fo;
  EXPECT_NE(fo.find("not called by a shown function"), std::string::npos) << "B's tooltip: " << fo;

  // --hide folds B and C into A in the analysis: A -> D is then a solid edge of 80 calls.
  const RunResult hide = callprof({"graph", "-i", "profile.callprof", "--hide", "^(B|C)$", "--format", "dot"});
  ASSERT_EQ(hide.exit, exited(0)) << hide.err;
  const std::string h = hide.out;
  const std::string hidden_ad = edge(h, node_of(h, "A"), node_of(h, "D"));
  EXPECT_NE(hidden_ad.find("\\n80 calls\""), std::string::npos) << h;
  EXPECT_EQ(hidden_ad.find("dashed"), std::string::npos) << h;
  EXPECT_NE(h.find("all 3 functions shown"), std::string::npos) << h;

  // Bad options: one line, no file.
  const RunResult bad = callprof({"graph", "-i", "profile.callprof", "-o", "x.pdf"});
  EXPECT_EQ(bad.exit, exited(2));
  EXPECT_NE(bad.err.find("callprof: error: cannot tell the format of 'x.pdf'"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir() / "x.pdf"));

  // PNG through Graphviz's bitmap plugin (cairo or gd), when the machine has one.
  const RunResult png = callprof({"graph", "-i", "profile.callprof", "-o", "g.png"});
  if (png.exit != exited(0) && png.err.find("PNG needs a Graphviz bitmap renderer") != std::string::npos) {
    EXPECT_FALSE(std::filesystem::exists(dir() / "g.png"));
    GTEST_SKIP() << "PNG not checked: " << png.err;
  }
  ASSERT_EQ(png.exit, exited(0)) << png.err;
  const std::string image = read("g.png");
  EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(image.size(), 10000u) << "a picture of five boxes and their labels";
}

E2E_INSTANTIATE(Graph);

}  // namespace
}  // namespace e2e

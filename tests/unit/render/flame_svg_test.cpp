// The flame graph SVG: geometry and numbers worked out by hand on folded-stack fixtures,
// differential colours, metric errors, and hostile names parsed back as inert text.
#include "render/flame_svg.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#ifdef CALLPROF_HAVE_EXPAT
#include <expat.h>
#endif

#include "folded_profile.h"
#include "render/flame_colors.h"
#include "render/flame_script.h"

namespace callprof {
namespace {

using testing::folded;

Analysis analyse(Profile p) {
  auto a = Analysis::run(std::move(p), QueryOptions{});
  if (!a) throw std::runtime_error(a.error().message);
  return std::move(*a);
}

std::string svg_of(const Analysis& a, const FlameOptions& o = {}) {
  auto svg = render_flame_svg(a, o);
  if (!svg) throw std::runtime_error(svg.error().message);
  return *svg;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// main (self 0) calls a (30 ns) and b (50 ns, and c: 20 ns under it): total 100 ns. At
// 1200 px the frames get 1180 px (10 px margins): 11.8 px per ns.
constexpr const char* kShape =
    "main;a 30\n"
    "main;b 50\n"
    "main;b;c 20\n";

TEST(FlameSvg, FramesArePlacedByDepthAndMetric) {
  const std::string svg = svg_of(analyse(folded(kShape)));
  // Depth 3 at the top (y 84), the root at the bottom: y = 84 + (3 - depth) * 16.
  EXPECT_TRUE(has(svg, R"(<g class="r"><title>all)"
                       "\n"
                       R"((100ns, 100.0%)</title><rect x="10" y="132" width="1180")"));
  EXPECT_TRUE(has(svg, "<title>main\n(1 call, 100ns, 100.0%)</title><rect x=\"10\" y=\"116\" width=\"1180\""));
  EXPECT_TRUE(has(svg, "<title>a\n(1 call, 30ns, 30.0%)</title><rect x=\"10\" y=\"100\" width=\"354\""));
  EXPECT_TRUE(has(svg, "<title>b\n(1 call, 70ns, 70.0%, self 50ns)</title><rect x=\"364\" y=\"100\" width=\"826\""));
  EXPECT_TRUE(has(svg, "<title>c\n(1 call, 20ns, 20.0%)</title><rect x=\"364\" y=\"84\" width=\"236\""));
  EXPECT_TRUE(has(svg, R"(width="1200" height="178" viewBox="0 0 1200 178")"));  // 84 + 4 rows + 30
  EXPECT_TRUE(has(svg, "self (wall time): 100ns · 5 frames"));
  EXPECT_TRUE(has(svg, "fill=\"" + name_fill("a") + "\"/><text x=\"13\" y=\"110.5\">a</text>"));
}

TEST(FlameSvg, IcicleHangsFromTheTop) {
  FlameOptions o;
  o.icicle = true;
  const std::string svg = svg_of(analyse(folded(kShape)), o);
  EXPECT_TRUE(has(svg, "<title>c\n(1 call, 20ns, 20.0%)</title><rect x=\"364\" y=\"132\" width=\"236\""));
  EXPECT_TRUE(has(svg, R"(<rect x="10" y="84" width="1180" height="15" fill="#c8c8c8"/>)"));
  EXPECT_TRUE(has(svg, "data-icicle=\"1\""));
}

TEST(FlameSvg, LabelsAreCutToFitTheirFrame) {
  // 1180 ns at 1180 px: the long name's frame is 100 px, room for floor(94 / 7.08) = 13
  // characters: 11 and "..".
  const std::string svg = svg_of(analyse(folded("main;abcdefghijklmnopqrstuvwxyz 100\nmain;rest 1080\n")));
  EXPECT_TRUE(has(svg, "width=\"100\" height=\"15\""));
  EXPECT_TRUE(has(svg, ">abcdefghijk..</text>"));
}

TEST(FlameSvg, NarrowFramesAreElidedAndCounted) {
  // 2 ns of 1180 ns are 2 px: below a 3 px minimum each, 3 of them together are merged.
  const std::string svg =
      svg_of(analyse(folded("main;big 1174\nmain;x 2\nmain;y 2\nmain;z 2\n")), FlameOptions{.min_width_px = 3});
  EXPECT_TRUE(has(svg,
                  "<g class=\"m\"><title>[3 narrow frames]\n(3 call paths merged, 6ns, 0.51%)</title>"
                  "<rect x=\"1184\" y=\"84\" width=\"6\""));
  EXPECT_TRUE(has(svg, "3 of 5 call paths narrower than 3 px elided"));
  EXPECT_TRUE(has(svg, "(1.18µs, 100.0%; 3 call paths narrower than 3 px elided)"));
  EXPECT_FALSE(has(svg, "<title>x\n"));
}

TEST(FlameSvg, OtherMetricsAndUnmeasuredOnes) {
  const Analysis a = analyse(folded("main;a 10 cpu=4 samples=2\nmain;b 10 samples=3\n"));
  const std::string svg = svg_of(a, FlameOptions{.metric = FlameMetric::Samples});
  EXPECT_TRUE(has(svg, "<title>b\n(3 samples, 60.0%)</title>"));
  EXPECT_TRUE(has(svg, "samples: 5 samples"));
  const auto offcpu = render_flame_svg(a, FlameOptions{.metric = FlameMetric::OffCpu});
  ASSERT_FALSE(offcpu.ok());
  EXPECT_EQ(offcpu.error().message,
            "--metric offcpu (off-CPU time) was not measured in this profile (measured: self, cpu, samples, calls)");
  EXPECT_FALSE(render_flame_svg(a, FlameOptions{.width_px = 50}).ok());
  EXPECT_EQ(parse_flame_metric("allocbytes"), FlameMetric::AllocBytes);
  EXPECT_FALSE(parse_flame_metric("wall").has_value());
}

// --metric offcpu is every switched-out interval, blocked or waiting for a CPU, as off-CPU
// flame graphs from perf have it; a profile whose off-CPU time was all preempted has one.
TEST(FlameSvg, OffCpuIsBlockedPlusWaitingForACpu) {
  const Analysis a = analyse(folded("main;a 100 cpu=40 off=30 preempted=30\nmain;b 100 cpu=50 preempted=50\n"));
  const std::string svg = svg_of(a, FlameOptions{.metric = FlameMetric::OffCpu});
  EXPECT_TRUE(has(svg, "offcpu (off-CPU time): 110ns")) << svg.substr(0, 4000);
  EXPECT_TRUE(has(svg, "<title>a\n(1 call, 60ns, 54.5%)</title>"));
  EXPECT_TRUE(has(svg, "<title>b\n(1 call, 50ns, 45.5%)</title>"));
  const Analysis waited = analyse(folded("main;b 100 cpu=50 preempted=50\n"));
  EXPECT_TRUE(render_flame_svg(waited, FlameOptions{.metric = FlameMetric::OffCpu}).ok())
      << "off-CPU time that was all waiting for a CPU was measured";
}

TEST(FlameSvg, KindsGetTheirOwnColoursAndLegend) {
  const std::string svg = svg_of(analyse(folded("main;[syscall]_write 10\nmain;[pruned] 10\n[truncated];f 10\n")));
  EXPECT_TRUE(has(svg, "fill=\"" + kind_fill(FunctionKind::Syscall, "[syscall] write") + "\""));
  EXPECT_TRUE(has(svg,
                  "<title>[pruned]\n(1 call, 10ns, 33.3%)</title><rect x=\"403.3333\" y=\"84\" width=\"393.3333\""
                  " height=\"15\" fill=\"url(#hatch)\""));
  EXPECT_TRUE(has(svg, ">system call</text>"));
  EXPECT_TRUE(has(svg, ">pruned</text>"));
  EXPECT_TRUE(has(svg, ">truncated stack</text>"));
  EXPECT_FALSE(has(svg, ">kernel</text>"));
}

TEST(FlameSvg, NameColoursAreStableWarmHashes) {
  // FNV-1a of "main" is 0xea90e208 (worked out apart from this code): bits 0-9, 10-19 and
  // 20-29 are 520, 56 and 681 of 1023, giving red 205 + 50 * 0.666 = 238, green
  // 230 * 0.508 = 117, blue 55 * 0.055 = 3.
  EXPECT_EQ(stable_hash("main"), 0xea90e208u);
  EXPECT_EQ(name_fill("main"), "#ee7503");
}

// Base: a 30, b 50, gone 20. New (functions numbered in another order): new 15, a 60, b 25.
constexpr const char* kBase = "main;a 30\nmain;b 50\nmain;gone 20\n";
constexpr const char* kNew = "main;new 15\nmain;a 60\nmain;b 25\n";

TEST(FlameSvg, DiffColoursEachPathByItsChangeMatchedByName) {
  const Analysis base = analyse(folded(kBase));
  const std::string svg = svg_of(analyse(folded(kNew)), FlameOptions{.base = &base, .base_label = "before.data"});
  // a: 30 -> 60 is half of the larger: 235 - 195 / 2 rounds to 138 (0x8a), red 250.
  EXPECT_TRUE(has(svg,
                  "<title>a\n(base 30ns → 60ns, +30ns, +100.0%)</title><rect x=\"10\" y=\"84\" width=\"708\""
                  " height=\"15\" fill=\"#fa8a8a\""));
  EXPECT_TRUE(has(svg, "<title>b\n(base 50ns → 25ns, -25ns, -50.0%)</title>"));
  EXPECT_TRUE(has(svg, "fill=\"#8a8afa\""));
  EXPECT_TRUE(has(svg, "<title>new\n(only in this profile: 15ns)</title>"));
  EXPECT_TRUE(has(svg, "fill=\"#ff2828\""));
  EXPECT_TRUE(has(svg, "<title>main\n(base 100ns → 100ns, +0, +0.0%)</title>"));
  EXPECT_TRUE(has(svg, "against before.data: 100ns, 20ns on paths only in the base (not drawn)"));
  EXPECT_TRUE(has(svg, ">grew (slower)</text>"));
  EXPECT_EQ(diff_fill(1, 1), "#ebebeb");
}

TEST(FlameSvg, DiffNormalizedScalesTheBaseToThisTotal) {
  const Analysis base = analyse(folded(kBase));
  const Analysis next = analyse(folded("main;new 30\nmain;a 120\nmain;b 50\n"));  // total 200: twice the base
  const std::string svg = svg_of(next, FlameOptions{.base = &base, .normalize = true});
  EXPECT_TRUE(has(svg, "<title>a\n(base 60ns → 120ns, +60ns, +100.0%)</title>"));
  EXPECT_TRUE(has(svg, "(scaled ×2)"));
  EXPECT_TRUE(has(svg, "40ns on paths only in the base"));
}

TEST(FlameSvg, DiffNeedsTheMetricInTheBaseToo) {
  const Analysis base = analyse(folded(kBase));
  const auto svg =
      render_flame_svg(analyse(folded("main;a 10 cpu=5\n")), FlameOptions{.metric = FlameMetric::Cpu, .base = &base});
  ASSERT_FALSE(svg.ok());
  EXPECT_TRUE(has(svg.error().message, "not measured in the base profile"));
}

#ifdef CALLPROF_HAVE_EXPAT
// What an XML parser sees: the elements, their attributes, and the text of each <title>.
struct Parsed {
  std::string error;
  std::multiset<std::string> elements;
  std::vector<std::string> attributes;
  std::vector<std::string> titles;
  std::string script;
  std::vector<std::string> open;
  std::string text;
};

Parsed parse(const std::string& svg) {
  Parsed p;
  XML_Parser parser = XML_ParserCreate("UTF-8");
  XML_SetUserData(parser, &p);
  XML_SetElementHandler(
      parser,
      [](void* data, const XML_Char* name, const XML_Char** attrs) {
        auto& p = *static_cast<Parsed*>(data);
        p.elements.insert(name);
        for (size_t i = 0; attrs[i]; i += 2) p.attributes.push_back(attrs[i]);
        p.open.push_back(name);
        p.text.clear();
      },
      [](void* data, const XML_Char* name) {
        auto& p = *static_cast<Parsed*>(data);
        if (std::string(name) == "title") p.titles.push_back(p.text);
        if (std::string(name) == "script") p.script = p.text;
        p.open.pop_back();
        p.text.clear();
      });
  XML_SetCharacterDataHandler(
      parser, [](void* data, const XML_Char* s, int len) { static_cast<Parsed*>(data)->text.append(s, size_t(len)); });
  if (XML_Parse(parser, svg.data(), int(svg.size()), 1) == XML_STATUS_ERROR)
    p.error = std::string(XML_ErrorString(XML_GetErrorCode(parser))) + " at line " +
              std::to_string(XML_GetCurrentLineNumber(parser));
  XML_ParserFree(parser);
  return p;
}
#endif

Profile hostile_profile() {
  Profile p = folded(
      "main;h0 10\nmain;h1 20\nmain;h2 30\nmain;h3 40\nmain;h4 50\nmain;h5 60\nmain;h6 70\n"
      "main;h7 80\nmain;h8 90\nmain;h6;h7 5\n");
  const std::vector<std::string> names = {
      "<script>alert(1)</script>",
      "\"onmouseover=\"alert(2)\" x=\"",
      "line1\nline2",
      "\x1b[31mred\x1b[0m",
      "]]></text></svg><svg onload=\"alert(3)\">",
      "long" + std::string(10000, 'x'),
      "a&b'c",
      "bad\xff utf8 \xef\xbf\xbe nonchar",
      "<img src=x onerror=alert(4)>",
  };
  for (size_t i = 0; i < names.size(); ++i)
    for (Function& f : p.functions)
      if (f.name == "h" + std::to_string(i)) f.name = names[i];
  p.meta.command = "./evil </title><script>alert(5)</script>";
  return p;
}

TEST(FlameSvg, HostileNamesAreInertWellFormedText) {
#ifndef CALLPROF_HAVE_EXPAT
  GTEST_SKIP() << "expat's headers (libexpat1-dev) are not installed: cannot parse the SVG back";
#else
  for (const bool icicle : {false, true}) {
    const std::string svg = svg_of(analyse(hostile_profile()), FlameOptions{.icicle = icicle});
    const Parsed p = parse(svg);
    ASSERT_EQ(p.error, "");
    // Only the writer's own elements, one script (the embedded one), no event handler.
    const std::set<std::string> allowed = {"svg",           "title",   "style", "defs",  "linearGradient",
                                           "stop",          "pattern", "rect",  "line",  "text",
                                           "foreignObject", "input",   "g",     "script"};
    for (const std::string& e : p.elements) EXPECT_TRUE(allowed.count(e)) << e;
    EXPECT_EQ(p.elements.count("script"), 1u);
    EXPECT_EQ(p.elements.count("img"), 0u);
    EXPECT_EQ(p.script, "\n" + std::string(flame_script()));
    for (const std::string& a : p.attributes) EXPECT_NE(a.substr(0, 2), "on") << a;
    // The names come back as the text they were, made visible where they held controls.
    const auto titled = [&](const std::string& start) {
      for (const std::string& t : p.titles)
        if (t.rfind(start, 0) == 0) return true;
      return false;
    };
    EXPECT_TRUE(titled("<script>alert(1)</script>\n(1 call, 10ns,"));
    EXPECT_TRUE(titled("\"onmouseover=\"alert(2)\" x=\"\n("));
    EXPECT_TRUE(titled("line1\\nline2\n("));
    EXPECT_TRUE(titled("\\x1b[31mred\\x1b[0m\n("));
    EXPECT_TRUE(titled("]]></text></svg><svg onload=\"alert(3)\">\n("));
    EXPECT_TRUE(titled("a&b'c\n("));
    EXPECT_TRUE(titled("bad\\xff utf8 \\ufffe nonchar\n("));
    EXPECT_TRUE(titled(std::string(icicle ? "Icicle" : "Flame") + " graph: ./evil </title><script>alert(5)</script>"));
    // The 10,000-character name keeps its start and end: 2,000 characters with the "…".
    bool long_seen = false;
    for (const std::string& t : p.titles) {
      if (t.rfind("longxxx", 0) != 0) continue;
      long_seen = true;
      const std::string name = t.substr(0, t.find('\n'));
      EXPECT_EQ(name.size(), 1999u + 3u);  // 1,999 ASCII characters and the 3-byte "…"
      EXPECT_TRUE(has(name, "…"));
    }
    EXPECT_TRUE(long_seen);
  }
#endif
}

TEST(FlameSvg, EveryFixtureIsWellFormed) {
#ifndef CALLPROF_HAVE_EXPAT
  GTEST_SKIP() << "expat's headers (libexpat1-dev) are not installed: cannot parse the SVG back";
#else
  const Analysis base = analyse(folded(kBase));
  for (const std::string& svg :
       {svg_of(analyse(folded(kShape))), svg_of(analyse(folded(kNew)), FlameOptions{.base = &base}),
        svg_of(analyse(folded("main 0\n"))), svg_of(analyse(Profile{}))})
    EXPECT_EQ(parse(svg).error, "");
#endif
}

}  // namespace
}  // namespace callprof

// The web report's page: JSON made safe for a script element, the page's structure (its
// own scripts only, whatever the names), and the columnar JSON layout it embeds, with the
// counter-example's numbers computed by hand. The Source panel's block: source_data_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures.h"
#include "html/html_report.h"
#include "html/script_json.h"
#include "report/report.h"

namespace callprof {
namespace {

using json = nlohmann::json;

size_t count(std::string_view haystack, std::string_view needle) {
  size_t n = 0;
  for (size_t i = haystack.find(needle); i != std::string_view::npos; i = haystack.find(needle, i + 1)) ++n;
  return n;
}

// The text of the script element with this id.
std::string script_text(const std::string& page, const std::string& id) {
  const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
  const size_t from = page.find(open);
  EXPECT_NE(from, std::string::npos) << id;
  const size_t start = from + open.size();
  return page.substr(start, page.find("</script>", start) - start);
}

std::string page_of(Profile p) {
  auto analysis = Analysis::run(std::move(p), QueryOptions{});
  EXPECT_TRUE(analysis.ok());
  auto page = html::render_html(*analysis, html::HtmlOptions{});
  EXPECT_TRUE(page.ok());
  return *page;
}

TEST(ScriptJson, EscapesWhatCouldEndOrConfuseTheElement) {
  EXPECT_EQ(html::json_for_script(R"({"a":"</script><!--x-->&amp;"})"),
            R"({"a":"\u003c/script\u003e\u003c!--x--\u003e\u0026amp;"})");
  EXPECT_EQ(html::json_for_script("[\"a\xe2\x80\xa8"
                                  "b\xe2\x80\xa9"
                                  "c\"]"),
            R"(["a\u2028b\u2029c"])");
  // Other UTF-8 (also other E2 sequences) and everything else stays as it was.
  EXPECT_EQ(html::json_for_script("[\"\xe2\x80\xa6 \xc3\xa9 \\n x\"]"), "[\"\xe2\x80\xa6 \xc3\xa9 \\n x\"]");
  EXPECT_EQ(html::json_for_script(""), "");
  EXPECT_EQ(html::json_for_script("\xe2"), "\xe2");  // a truncated sequence is not misread
}

TEST(ScriptJson, ResultIsTheSameJson) {
  const json value = {{"names", {"</script>", "<!--", "a&b", "x\xe2\x80\xa8y", "\"quoted\"", "line\nbreak"}}};
  const std::string escaped = html::json_for_script(value.dump());
  EXPECT_EQ(escaped.find('<'), std::string::npos);
  EXPECT_EQ(escaped.find('>'), std::string::npos);
  EXPECT_EQ(escaped.find('&'), std::string::npos);
  EXPECT_EQ(json::parse(escaped), value);
}

TEST(HtmlPage, HostileNamesCannotLeaveTheDataElement) {
  Profile p = testing::counter_example_profile();
  p.functions[0].name = "</script><script>alert(1)</script>";
  p.functions[1].name = "<!--<script>";
  p.meta.command = "</script><img src=x onerror=alert(2)>";
  const std::string page = page_of(std::move(p));
  // The page's own elements only: four scripts (three JSON blocks and the code), one style.
  EXPECT_EQ(count(page, "<script"), 4u);
  EXPECT_EQ(count(page, "</script"), 4u);
  EXPECT_EQ(count(page, "<img"), 0u);
  EXPECT_EQ(count(page, "<!--"), 0u);
  EXPECT_EQ(count(page, "</style"), 1u);
  const json doc = json::parse(script_text(page, "callprof-data"));
  EXPECT_EQ(doc["metadata"]["command"], "</script><img src=x onerror=alert(2)>");
  bool found = false;
  for (const json& f : doc["functions"]) found |= f["name"] == "</script><script>alert(1)</script>";
  EXPECT_TRUE(found);
}

TEST(HtmlPage, EmbedsTheAssetsAndTheGraph) {
  const std::string page = page_of(testing::counter_example_profile());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(page, "@CALLPROF_"), 0u) << "every placeholder is filled";
  EXPECT_NE(page.find("function startApp()"), std::string::npos) << "the script is embedded";
  EXPECT_NE(page.find("--accent"), std::string::npos) << "the style sheet is embedded";
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  // The Source panel's block: the counter-example locates nothing, and the panel says why.
  EXPECT_TRUE(json::parse(script_text(page, "callprof-source")).contains("why"));
  const json graph = json::parse(script_text(page, "callprof-graph"));
  ASSERT_TRUE(graph.contains("svg")) << graph.dump();
  const std::string svg = graph["svg"].get<std::string>();
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  // Graphviz's SVG as laid out: no pan and zoom script, no fitting (the page sizes and zooms it).
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  const std::string root = svg.substr(0, svg.find('>'));
  EXPECT_EQ(root.find("100%"), std::string::npos) << root;
  EXPECT_NE(root.find(" viewBox=\""), std::string::npos) << root;
}

std::string report_json(const Profile& p, JsonLayout layout) {
  ReportOptions o;
  o.json = true;
  o.json_layout = layout;
  std::ostringstream out;
  EXPECT_TRUE(render_report(p, o, out).ok());
  return out.str();
}

// main > A > B > D (40 calls, 120 ms) and main > A > C > D (40 calls, 40 ms), B and C 1 ms
// each, main > spawn 50 µs; thread 101: worker > E (5 calls, 5 ms). Depth first, children in
// the order first seen: main A B D C D spawn worker E.
TEST(JsonColumns, NodesInDepthFirstOrderWithParents) {
  const json doc = json::parse(report_json(testing::counter_example_profile(), JsonLayout::Columns));
  EXPECT_FALSE(doc.contains("tree"));
  const json& n = doc["nodes"];
  EXPECT_EQ(n["count"], 9);
  EXPECT_EQ(n["parent"], json({-1, 0, 1, 2, 1, 4, 0, -1, 7}));
  std::vector<std::string> names;
  for (const json& id : n["function_id"]) {
    for (const json& f : doc["functions"])
      if (f["id"] == id) names.push_back(f["name"]);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"main", "A", "B", "D", "C", "D", "spawn", "worker", "E"}));
  EXPECT_EQ(n["self_ns"], json({0, 0, 1000000, 120000000, 1000000, 40000000, 50000, 0, 5000000}));
  EXPECT_EQ(n["total_ns"],
            json({162050000, 162000000, 121000000, 120000000, 41000000, 40000000, 50000, 5000000, 5000000}));
  EXPECT_EQ(n["calls"][3], 40);
  EXPECT_EQ(n["calls"][8], 5);
  EXPECT_EQ(n["recursion_level"], json({0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(n["cpu_ns"][3], 100000000);
  EXPECT_EQ(n["offcpu_ns"][3], 20000000);
  EXPECT_TRUE(n["samples"].is_null());
}

TEST(JsonColumns, EdgesAsColumnsWithTheNestedDocumentsNumbers) {
  const Profile p = testing::counter_example_profile();
  const json nested = json::parse(report_json(p, JsonLayout::Nested));
  const json columns = json::parse(report_json(p, JsonLayout::Columns));
  const json& e = columns["edges"];
  ASSERT_EQ(e["count"], nested["edges"].size());
  for (size_t i = 0; i < nested["edges"].size(); ++i) {
    const json& want = nested["edges"][i];
    EXPECT_EQ(e["caller_id"][i], want["caller_id"].is_null() ? json(-1) : want["caller_id"]);
    for (const char* key : {"callee_id", "calls", "recursive_calls", "self_ns", "total_ns", "cpu_ns", "offcpu_ns"})
      EXPECT_EQ(e[key][i], want[key]) << key << " of edge " << i;
  }
  // Everything else is the same document.
  for (const char* key : {"schema_version", "selection", "metadata", "summary", "functions", "threads", "processes",
                          "modules", "syscalls", "by_process", "by_thread"})
    EXPECT_EQ(columns[key], nested[key]) << key;
}

TEST(JsonColumns, FilterKeepsMatchesTheirAncestorsAndSubtrees) {
  ReportOptions o;
  o.json = true;
  o.json_layout = JsonLayout::Columns;
  o.filter = "^C$";
  std::ostringstream out;
  ASSERT_TRUE(render_report(testing::counter_example_profile(), o, out).ok());
  const json doc = json::parse(out.str());
  EXPECT_EQ(doc["nodes"]["parent"], json({-1, 0, 1, 2}));  // main > A > C > D
  EXPECT_EQ(doc["nodes"]["total_ns"], json({162050000, 162000000, 41000000, 40000000}));
}

TEST(JsonColumns, SampledProfilesHaveSamples) {
  const json doc = json::parse(report_json(testing::sampled_profile(), JsonLayout::Columns));
  const json& n = doc["nodes"];
  ASSERT_TRUE(n["samples"].is_array());
  EXPECT_EQ(n["samples"].size(), n["count"]);
  EXPECT_TRUE(n["cpu_ns"].is_null());
  EXPECT_TRUE(doc["edges"]["cpu_ns"].is_null());
}

}  // namespace
}  // namespace callprof

// The analysis layer seen through the views: focus, hide, callers-of and callees-of with
// hand-computed numbers (the SPEC §1.1 counter-example), process selection, name styles
// and width, the percent limit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures.h"
#include "report/report.h"

namespace callprof {
namespace {

using nlohmann::json;

struct Out {
  bool ok;
  std::string text;
};

Out run(const ReportOptions& o, Profile p = testing::counter_example_profile()) {
  std::ostringstream out;
  Status s = render_report(std::move(p), o, out);
  return s.ok() ? Out{true, out.str()} : Out{false, s.error().message};
}

ReportOptions view(View v, std::string function = "") {
  ReportOptions o;
  o.view = v;
  o.function = std::move(function);
  o.percent_limit = 0;
  return o;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

// The table row whose last word is `name` (first match after the header).
std::vector<std::string> row(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.empty() || l[0] == '#') continue;
    const auto w = words(l);
    if (!w.empty() && w.back() == name) return w;
  }
  return {};
}

TEST(CallersOf, CounterExampleSplitsDExactly) {
  const Out r = run(view(View::CallersOf, "^D$"));
  ASSERT_TRUE(r.ok) << r.text;
  // calls, self, total, total% (of D's total), name
  EXPECT_EQ(row(r.text, "D"), (std::vector<std::string>{"80", "160ms", "160ms", "100.00%", "D"})) << r.text;
  EXPECT_EQ(row(r.text, "B"), (std::vector<std::string>{"40", "120ms", "120ms", "75.00%", "B"}));
  EXPECT_EQ(row(r.text, "C"), (std::vector<std::string>{"40", "40.0ms", "40.0ms", "25.00%", "C"}));
  // B's path continues to A then main; the hotter caller comes first.
  EXPECT_LT(r.text.find(" B\n"), r.text.find(" C\n"));
  EXPECT_NE(r.text.find("        main\n"), std::string::npos) << r.text;
}

TEST(CalleesOf, MergesWhateverTheCaller) {
  const Out r = run(view(View::CalleesOf, "^A$"));
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("# callprof callees of ^A$"), std::string::npos);
  // A is the virtual root: 100 % is A's total, 162 ms.
  EXPECT_NE(r.text.find("162ms  100.00%"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("main"), std::string::npos) << "A's callers are not part of its callees";
  EXPECT_NE(r.text.find("74.69%"), std::string::npos) << "B's 121 ms of A's 162 ms: " << r.text;
}

TEST(Focus, ReRootsEveryViewAndTotals) {
  ReportOptions o = view(View::Flat);
  o.query.focus = "^D$";
  o.json = true;
  const json d = json::parse(run(o).text);
  EXPECT_EQ(d["summary"]["total_ns"], 160000000) << "percentages are of D's total";
  EXPECT_EQ(d["selection"]["focus"], "^D$");
  ASSERT_EQ(d["functions"].size(), 1u);
  EXPECT_EQ(d["functions"][0]["calls"], 80);
  o.json = false;
  const Out text = run(o);
  EXPECT_NE(text.text.find("# focus:    ^D$ (percentages of its total, 160ms)"), std::string::npos) << text.text;
}

TEST(Hide, FoldsIntoCallersAndKeepsTotals) {
  ReportOptions o = view(View::Flat);
  o.query.hide = "^[BC]$";
  o.json = true;
  const json d = json::parse(run(o).text);
  EXPECT_EQ(d["summary"]["total_ns"], 167050000) << "the grand total does not change";
  for (const json& f : d["functions"]) EXPECT_NE(f["name"], "B");
  const json* a = nullptr;
  for (const json& f : d["functions"])
    if (f["name"] == "A") a = &f;
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)["self_ns"], 2000000) << "B's and C's self time folded into A";
  EXPECT_EQ((*a)["total_ns"], 162000000);
  EXPECT_EQ((*a)["calls"], 1);
}

TEST(Selection, PidSelectsOneProcess) {
  ReportOptions o = view(View::Flat);
  o.query.pid = 2;
  o.json = true;
  const json d = json::parse(run(o, testing::exact_profile()).text);
  EXPECT_EQ(d["selection"]["pid"], 2);
  ASSERT_EQ(d["by_thread"].size(), 1u);
  EXPECT_EQ(d["by_thread"][0]["pid"], 2);
  EXPECT_EQ(d["by_process"].size(), 1u);
  o.query.pid = 7;
  EXPECT_EQ(run(o, testing::exact_profile()).text, "process 7 is not in the profile (processes: 1, 2)");
}

TEST(Json, ByProcessAndThreadBreakdownsAddUp) {
  ReportOptions o;
  o.json = true;
  const json d = json::parse(run(o, testing::exact_profile()).text);
  ASSERT_EQ(d["by_process"].size(), 2u);
  uint64_t d_calls = 0;
  for (const json& p : d["by_process"])
    for (const json& f : p["functions"])
      if (f["id"] == 4) d_calls += f["calls"].get<uint64_t>();
  EXPECT_EQ(d_calls, 80u);
  EXPECT_EQ(d["by_thread"].size(), 3u);
}

TEST(Names, ShortByDefaultFullInJson) {
  ReportOptions o = view(View::Flat);
  const Out r = run(o, testing::cpp_profile());
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("  std::sort<…>\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("  Index<…>::find(std::__cxx11::basic_string<…> const&) const\n"), std::string::npos)
      << "two finds of different Index<> stay apart: " << r.text;
  EXPECT_NE(r.text.find("  spawn(int)\n"), std::string::npos) << "overloads stay apart";
  o.json = true;
  const json d = json::parse(run(o, testing::cpp_profile()).text);
  bool found = false;
  for (const json& f : d["functions"])
    if (f["short_name"] == "std::sort<…>") {
      found = true;
      EXPECT_TRUE(f["name"].get<std::string>().starts_with("void std::sort<__gnu_cxx::"));
    }
  EXPECT_TRUE(found);
}

TEST(Width, CutsNamesWithAnEllipsis) {
  ReportOptions o = view(View::Flat);
  o.query.names = NameStyle::Full;
  o.width = 100;  // the numeric columns take 77 here: names get the rest
  const Out r = run(o, testing::cpp_profile());
  ASSERT_TRUE(r.ok);
  std::istringstream in(r.text);
  for (std::string l; std::getline(in, l);) {
    size_t cols = 0;
    for (char c : l) cols += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (l[0] != '#') EXPECT_LE(cols, 100u) << l;
  }
  EXPECT_NE(r.text.find("…\n"), std::string::npos);
}

TEST(PercentLimit, HidesSmallRowsAndSaysHowMany) {
  ReportOptions o = view(View::Flat);
  o.percent_limit = 3;  // spawn (0.03 %), E and worker (2.99 %) fall below
  const Out r = run(o);
  EXPECT_EQ(r.text.find(" spawn\n"), std::string::npos);
  EXPECT_EQ(r.text.find(" worker\n"), std::string::npos);
  EXPECT_NE(r.text.find("# 3 functions below 3 % hidden"), std::string::npos) << r.text;
  o.view = View::Tree;
  const Out t = run(o);
  // spawn under main, and worker's whole tree at the top level: one folded row each.
  const size_t first = t.text.find("[1 more below 3 %]");
  ASSERT_NE(first, std::string::npos) << t.text;
  EXPECT_NE(t.text.find("[1 more below 3 %]", first + 1), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("# 2 subtrees below 3 % hidden"), std::string::npos);
}

}  // namespace
}  // namespace callprof

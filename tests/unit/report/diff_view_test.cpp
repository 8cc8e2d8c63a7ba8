// The diff's text (golden files) and JSON: the header says what was compared and how, the
// tables carry the calls, rows within noise are counted or marked, names are escaped.
// Regenerate after an intended change, then review the diff of tests/golden/report/:
//   CALLPROF_UPDATE_GOLDEN=1 build/tests/unit/report/report_test --gtest_filter='DiffView*'
#include "report/diff_view.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "diff_fixtures.h"
#include "golden.h"

namespace callprof {
namespace {

using testing::analyse;
using testing::exact_run;
using testing::issue_run;
using testing::stack;

std::string render(const Diff& d, bool json = false, bool all = false, const std::string& command = "./prog") {
  DiffReportOptions o{.base_label = "a.callprof: " + command + " 1",
                      .next_label = "b.callprof: " + command + " 12",
                      .json = json,
                      .all = all};
  std::ostringstream out;
  render_diff(d, o, out);
  return out.str();
}

// A run with a tiny function the runtime folded (new run only) and two overloads, one of
// them made slower.
Profile folded_run(bool slower) {
  Profile p = exact_run(stack("main;work", slower ? 9000000 : 5000000, 1, 5000000) +
                            stack("main;work;step", slower ? 2000 : 4000000, 2000000, 4000000) +
                            stack("main;spawn(int)", 20000000, 20, 20000000) +
                            stack("main;spawn(double)", slower ? 60000000 : 20000000, 20, 20000000),
                        "./tiny");
  if (slower) p.threads[0].tree.base(3)[Metric::FoldedCalls] = 1998976;  // main > work > step
  return p;
}

TEST(DiffView, GoldenIssueRuns) {
  testing::check_golden("diff.txt", render(testing::diff(analyse(issue_run(1, 1), issue_run(2, 12)))));
}

TEST(DiffView, GoldenFoldedAndOverloadsWithAll) {
  DiffOptions o;
  o.metric = DiffMetric::Self;
  o.all = true;
  testing::check_golden("diff_all.txt",
                        render(testing::diff(analyse(folded_run(false), folded_run(true)), o), false, true));
}

TEST(DiffView, CallsMetricHasNoNoiseColumn) {
  DiffOptions o;
  o.metric = DiffMetric::Calls;
  const std::string text = render(testing::diff(analyse(issue_run(1, 1), issue_run(2, 12)), o));
  EXPECT_NE(text.find("# metric: calls"), std::string::npos) << text;
  EXPECT_EQ(text.find("noise  "), std::string::npos) << text;
  EXPECT_EQ(text.find("# scale:"), std::string::npos) << "calls are never scaled";
  EXPECT_NE(text.find("by function: 0 changed, 7 unchanged not shown"), std::string::npos) << text;
}

TEST(DiffView, JsonCarriesTheVerdictAndTheFoldLevel) {
  DiffOptions o;
  o.metric = DiffMetric::Self;
  o.all = true;
  const Diff d = testing::diff(analyse(folded_run(false), folded_run(true)), o);
  const auto doc = nlohmann::json::parse(render(d, true));
  EXPECT_EQ(doc["metric"], "self");
  EXPECT_EQ(doc["metric_default"], false);
  EXPECT_EQ(doc["scale_method"], "typical");
  EXPECT_EQ(doc["base"]["label"], "a.callprof: ./prog 1");
  ASSERT_EQ(doc["folded"].size(), 1u);
  EXPECT_EQ(doc["folded"][0]["name"], "step");
  EXPECT_EQ(doc["folded"][0]["by"], "auto-fold");
  EXPECT_EQ(doc["folded"][0]["in_new"], true);
  EXPECT_EQ(doc["folded"][0]["in_base"], false);
  const auto& first = doc["functions"][0];
  EXPECT_EQ(first["name"], "spawn(double)");
  EXPECT_EQ(first["display"], "spawn(double)");
  EXPECT_EQ(first["changed"], true);
  EXPECT_EQ(first["base"]["calls"], 20);
  EXPECT_EQ(first["calls_delta"], 0);
  EXPECT_GT(first["noise"].get<double>(), 0);
  // One function holds most of the self time, so nothing is scaled: 20 ms became 60 ms.
  EXPECT_EQ(doc["scale"], 1.0);
  EXPECT_DOUBLE_EQ(first["base_value"].get<double>(), 20e6);
  EXPECT_DOUBLE_EQ(first["new_value"].get<double>(), 60e6);
  EXPECT_DOUBLE_EQ(first["delta"].get<double>(), 40e6);
  EXPECT_EQ(doc["functions_changed"], 1);
  EXPECT_EQ(doc["functions_within_noise"], 4) << "--all shows them and still counts them";
  EXPECT_EQ(doc["paths"][0]["path"], nlohmann::json({"main", "spawn(double)"}));
  bool step_folded = false;
  for (const auto& f : doc["functions"])
    if (f["name"] == "step") step_folded = f["folded"] == true && f["base"]["calls"] == 2000000;
  EXPECT_TRUE(step_folded) << doc["functions"].dump(1);
}

TEST(DiffView, NamesFromTheProfileAreEscaped) {
  auto run = [](uint64_t t) {
    Profile p = exact_run(stack("main;evil", t, 1, t), "./evil\x1b]0;x\x07");
    for (Function& f : p.functions)
      if (f.name == "evil") f.name = "evil\x1b[31m\u202e";
    return p;
  };
  DiffOptions o;
  o.all = true;
  const Diff d = testing::diff(analyse(run(1000000), run(9000000)), o);
  const std::string text = render(d, false, true, "./evil\x1b]0;x\x07");
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_EQ(text.find("\u202e"), std::string::npos) << text;
  EXPECT_NE(text.find("evil\\x1b[31m"), std::string::npos) << text;
  const std::string json = render(d, true, false, "./evil\x1b]0;x\x07");
  EXPECT_EQ(json.find('\x1b'), std::string::npos);
  EXPECT_EQ(json.find("\u202e"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(json)["functions"][0]["name"], "evil\x1b[31m\u202e");
}

}  // namespace
}  // namespace callprof

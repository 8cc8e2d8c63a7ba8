// The calibration cache (src/record/calibration_cache.h) with the real runtime, in a cache
// directory of the test's own: three recordings measure the hooks' costs, the fourth uses
// their median once the runtime's check passes (and the header says so), --recalibrate
// measures anyway, and a cache whose check values no longer match the machine is measured
// again and its history restarted.
#include <stdlib.h>

#include <algorithm>
#include <fstream>

#include "e2e_support.h"

namespace e2e {
namespace {

class CachedCalibration : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    ASSERT_EQ(setenv("XDG_CACHE_HOME", (dir() / "cache").c_str(), 1), 0);
  }
  void TearDown() override {
    unsetenv("XDG_CACHE_HOME");
    E2ETest::TearDown();
  }

  // The calibration the recording says it used ("measured", "cached"), and its leaf cost.
  std::pair<std::string, double> calibration_of(const Report& r) {
    const json& p = r.processes().at(0);
    return {r.doc().at("metadata").at("exact").at("calibration").get<std::string>(),
            p.at("hook_inner_ns").get<double>() + p.at("hook_outer_ns").get<double>()};
  }

  std::filesystem::path cache_file() {
    for (const auto& e : std::filesystem::directory_iterator(dir() / "cache" / "callprof")) return e.path();
    throw std::runtime_error("no cache file");
  }
  json cache() {
    std::ifstream in(cache_file());
    return json::parse(in);
  }
};
E2E_INSTANTIATE(CachedCalibration);

TEST_P(CachedCalibration, ThreeRecordingsMeasureAndTheNextOnesUseTheirMedianOnceChecked) {
  const std::string binary = build("calls.c");
  std::vector<double> measured_costs;
  for (int i = 0; i < 3; ++i) {
    const auto [how, cost] = calibration_of(record_with({}, binary));
    EXPECT_EQ(how, "measured") << "recording " << i;
    measured_costs.push_back(cost);
  }
  EXPECT_EQ(cache().at("entries").size(), 3u);
  std::sort(measured_costs.begin(), measured_costs.end());
  const auto [how, cost] = calibration_of(record_with({}, binary));
  EXPECT_EQ(how, "cached");
  // The median in ticks, converted at the median rate: within a fraction of a percent.
  EXPECT_NEAR(cost, measured_costs[1], 0.01 * measured_costs[1]);
  EXPECT_EQ(cache().at("uses").get<int>(), 1);
  const RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof"}, dir());
  EXPECT_NE(text.out.find("measured by earlier recordings here"), std::string::npos) << text.out;
  expect_calls_c_truth(record_with({}, binary));

  EXPECT_EQ(calibration_of(record_with({"--recalibrate"}, binary)).first, "measured");
  EXPECT_EQ(cache().at("entries").size(), 4u) << "a measurement joins the history";
  EXPECT_EQ(cache().at("uses").get<int>(), 0);
}

TEST_P(CachedCalibration, ACacheTheMachineNoLongerMatchesIsMeasuredAgain) {
  const std::string binary = build("calls.c");
  for (int i = 0; i < 3; ++i) record_with({}, binary);
  json c = cache();
  ASSERT_EQ(c.at("entries").size(), 3u);
  for (json& e : c.at("entries"))
    for (json& v : e.at("check")) v = v.get<uint64_t>() * 2;  // as if the hooks had cost twice as much
  std::ofstream(cache_file()) << c.dump();
  const auto [how, cost] = calibration_of(record_with({}, binary));
  EXPECT_EQ(how, "measured") << "the check failed";
  EXPECT_EQ(cache().at("entries").size(), 1u) << "the history restarts";
}

}  // namespace
}  // namespace e2e

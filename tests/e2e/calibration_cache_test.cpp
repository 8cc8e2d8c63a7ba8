// The calibration cache (src/record/calibration_cache.h) with the real runtime, in a cache
// directory of the test's own: three recordings measure the hooks' costs, the next ones use
// their median once the runtime's check passes (and the header says so), --recalibrate
// measures anyway, and a cache whose check values no longer match the machine is measured
// again until the machine's own measurements are the median.
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <tuple>
#include <vector>

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

  // The calibration's file (the directory also holds the symbol cache's).
  std::filesystem::path cache_file() {
    for (const auto& e : std::filesystem::directory_iterator(dir() / "cache" / "callprof"))
      if (e.path().filename().string().starts_with("calibration-")) return e.path();
    throw std::runtime_error("no calibration cache file");
  }
  json cache() {
    std::ifstream in(cache_file());
    return json::parse(in);
  }
  // The leaf's cost per call (inner + outer) a recording seeded from `history` uses: each
  // value's median over the entries, in ticks, at the median rate.
  double cached_cost(const json& history) {
    const size_t set = compiler_name() == "clang" ? 1 : 0;
    auto median = [&](auto value) {
      std::vector<double> v;
      for (const json& e : history.at("entries")) v.push_back(value(e));
      std::sort(v.begin(), v.end());
      return v.at(v.size() / 2);
    };
    const double inner = median([&](const json& e) { return e.at("costs").at(set).at(0).get<double>(); });
    const double outer = median([&](const json& e) { return e.at("costs").at(set).at(1).get<double>(); });
    const double rate = median([](const json& e) { return e.at("ticks_per_ns").get<double>(); });
    return (inner + outer) / 65536.0 / rate;
  }
};
E2E_INSTANTIATE(CachedCalibration);

TEST_P(CachedCalibration, ThreeRecordingsMeasureAndTheNextOnesUseTheirMedianOnceChecked) {
  const std::string binary = build("calls.c");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(calibration_of(record_with({}, binary)).first, "measured") << "recording " << i;
  EXPECT_EQ(cache().at("entries").size(), 3u);
  // The next recording uses the cache unless its check fails (the machine's load moved the
  // hooks' cost by more than 10 %): then it measures, and its measurement joins the history.
  std::string how;
  double cost = 0, expected = 0;
  for (int i = 0; i < 20 && how != "cached"; ++i) {
    expected = cached_cost(cache());
    std::tie(how, cost) = calibration_of(record_with({}, binary));
  }
  ASSERT_EQ(how, "cached") << "no check passed in 20 recordings";
  EXPECT_NEAR(cost, expected, 0.001 * expected) << "the median of the cached measurements";
  EXPECT_FALSE(cache().contains("uses")) << "a checked use is not written down";
  const RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof"}, dir());
  EXPECT_NE(text.out.find("measured by earlier recordings here"), std::string::npos) << text.out;
  expect_calls_c_truth(record_with({}, binary));

  const size_t kept = cache().at("entries").size();
  EXPECT_EQ(calibration_of(record_with({"--recalibrate"}, binary)).first, "measured");
  EXPECT_EQ(cache().at("entries").size(), std::min<size_t>(kept + 1, 5)) << "a measurement joins the history";
}

TEST_P(CachedCalibration, ACacheTheMachineNoLongerMatchesIsMeasuredAgain) {
  const std::string binary = build("calls.c");
  // Three measurements in the history (on a loaded machine one may come out unusable, a
  // zero cost, and not join it: the next recording measures again).
  for (int i = 0; i < 6 && (i < 3 || cache().at("entries").size() < 3); ++i) record_with({}, binary);
  json c = cache();
  ASSERT_EQ(c.at("entries").size(), 3u);
  for (json& e : c.at("entries"))
    // As if the hooks had cost four times as much: with twice, a check on a machine loaded by
    // the rest of the suite may measure as much and pass (the test failed once that way, it
    // seems; the failing check was not recorded).
    for (json& v : e.at("check")) v = v.get<uint64_t>() * 4;
  std::ofstream(cache_file()) << c.dump();
  const auto [how, cost] = calibration_of(record_with({}, binary));
  EXPECT_EQ(how, "measured") << "the check failed";
  EXPECT_EQ(cache().at("entries").size(), 4u) << "the measurement joins the history";
  // The checks fail until the machine's own measurements are the median (two more), then
  // pass: a few more recordings, as the machine's load may fail a check too.
  std::string last;
  int measured = 1;
  for (int i = 0; i < 12 && last != "cached"; ++i) {
    last = calibration_of(record_with({}, binary)).first;
    measured += last == "measured";
  }
  EXPECT_EQ(last, "cached") << "no check passed in 12 recordings";
  EXPECT_GE(measured, 3) << "the inflated values were the median until three measurements replaced them";
}

}  // namespace
}  // namespace e2e

// The calibration cache's decisions with crafted calibration files: nothing is seeded before
// three measurements, then their median with each measurement beside it (alternates), until
// a measurement is due again; a measurement, after a failed check too, joins the history
// (eight kept), a checked use changes nothing; the JSON file round-trips and anything
// malformed or of another key is refused; and the cache itself, in a directory of the test's
// own, seeds and learns through the files a recording leaves.
#include "record/calibration_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "scoped_env.h"
#include "scratch_dir.h"

namespace callprof::record {
namespace {

constexpr uint32_t kClang = 1u << wire::kHooksClang;

// What a runtime leaves after measuring clang's hooks: costs scaled by `k`.
wire::CalibrationFile measured_file(uint64_t k) {
  wire::CalibrationFile f{};
  std::memcpy(f.magic, wire::kCalibrationMagic, sizeof f.magic);
  f.sets = kClang;
  f.ticks_per_ns = 2.0 + 0.001 * double(k);
  f.costs[wire::kHooksClang] = {10 * k, 20 * k, 30 * k, 5 * k, 40 * k, 41 * k};
  f.check[wire::kHooksClang] = 29 * k;
  return f;
}

CalibrationHistory history_of(std::initializer_list<uint64_t> ks) {
  CalibrationHistory h;
  for (uint64_t k : ks) learn(h, measured_file(k), kClang);
  return h;
}

TEST(CalibrationCache, SeedsNothingBeforeThreeMeasurements) {
  EXPECT_FALSE(seed_from(history_of({}), kClang));
  EXPECT_FALSE(seed_from(history_of({100, 101}), kClang));
  EXPECT_TRUE(seed_from(history_of({100, 101, 102}), kClang));
}

TEST(CalibrationCache, SeedsTheMedianOfEachValueAsCachedSets) {
  const auto f = seed_from(history_of({100, 130, 90}), kClang);
  ASSERT_TRUE(f);
  EXPECT_EQ(std::memcmp(f->magic, wire::kCalibrationMagic, 8), 0);
  EXPECT_EQ(f->sets, kClang);
  EXPECT_EQ(f->cached_sets, kClang);
  EXPECT_EQ(f->checked_sets | f->failed_sets, 0u);
  EXPECT_DOUBLE_EQ(f->ticks_per_ns, 2.1);
  EXPECT_EQ(f->costs[wire::kHooksClang].leaf_inner, 1000u);
  EXPECT_EQ(f->costs[wire::kHooksClang].recursive, 4100u);
  EXPECT_EQ(f->check[wire::kHooksClang], 2900u);
  EXPECT_EQ(f->costs[wire::kHooksGcc].leaf_inner, 0u) << "only the cache's sets";
}

TEST(CalibrationCache, KeepsTheLastEightMeasurements) {
  const CalibrationHistory h = history_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  ASSERT_EQ(h.entries.size(), kCalibrationHistoryKept);
  ASSERT_EQ(kCalibrationHistoryKept, 8u);
  EXPECT_EQ(h.entries.front().check[wire::kHooksClang], 29u * 3);
  EXPECT_EQ(h.entries.back().check[wire::kHooksClang], 29u * 10);
}

// A machine whose hooks cost more for a spell fails the median's check: each measurement is
// seeded beside it, for the check to confirm one of them instead of measuring anew.
TEST(CalibrationCache, SeedsEachMeasurementBesideTheMedian) {
  const auto f = seed_from(history_of({100, 130, 90}), kClang);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->alternates, 3u);
  const uint64_t ks[] = {100, 130, 90};
  for (uint32_t a = 0; a < 3; ++a) {
    EXPECT_EQ(f->alternate_check[a][wire::kHooksClang], 29u * ks[a]);
    EXPECT_EQ(f->alternate_costs[a][wire::kHooksClang].leaf_outer, 20u * ks[a]);
    EXPECT_EQ(f->alternate_costs[a][wire::kHooksGcc].leaf_outer, 0u) << "only the cache's sets";
  }
}

// A checked use changes nothing (nothing to write); one recording in kMeasureOneIn, drawn at
// random, measures anyway, and its measurement joins the history.
// A measurement whose leaf has no inner cost timed a path that records nothing: the history
// keeps it out, as a zero check value.
TEST(CalibrationCache, AMeasurementWithoutALeafInnerCostIsNotLearnt) {
  CalibrationHistory h = history_of({100, 101, 102});
  wire::CalibrationFile no_inner = measured_file(20);
  no_inner.costs[wire::kHooksClang].leaf_inner = 0;
  EXPECT_FALSE(learn(h, no_inner, kClang));
  wire::CalibrationFile no_check = measured_file(20);
  no_check.check[wire::kHooksClang] = 0;
  EXPECT_FALSE(learn(h, no_check, kClang));
  EXPECT_EQ(h.entries.size(), 3u);
  EXPECT_TRUE(learn(h, measured_file(20), kClang)) << "the same measurement with both";
}

TEST(CalibrationCache, ACheckedUseChangesNothingAndOneInAHundredMeasures) {
  CalibrationHistory h = history_of({100, 101, 102});
  auto f = seed_from(h, kClang);
  ASSERT_TRUE(f);
  f->checked_sets = kClang;
  EXPECT_EQ(outcome_of(*f, kClang), CalibrationOutcome::Cached);
  EXPECT_FALSE(learn(h, *f, kClang));
  EXPECT_EQ(h.entries.size(), 3u);
  EXPECT_TRUE(learn(h, measured_file(103), kClang));
  EXPECT_EQ(h.entries.size(), 4u);
  EXPECT_TRUE(seed_from(h, kClang));
  int due = 0;
  for (int i = 0; i < 10000; ++i) due += measurement_due();
  EXPECT_GT(due, 50) << "about 100 in 10,000";
  EXPECT_LT(due, 150);
}

TEST(CalibrationCache, AFailedCheckJoinsTheHistoryAndIsSeededAtOnce) {
  CalibrationHistory h = history_of({100, 101, 102, 103});
  auto failed_check = [](uint64_t scale) {  // measured again after the cached one failed
    wire::CalibrationFile f = measured_file(scale);
    f.failed_sets = kClang;
    return f;
  };
  EXPECT_EQ(outcome_of(failed_check(150), kClang), CalibrationOutcome::Measured);
  learn(h, failed_check(150), kClang);
  ASSERT_EQ(h.entries.size(), 5u) << "a fluke costs one measurement, not three";
  EXPECT_EQ(h.entries.back().check[wire::kHooksClang], 29u * 150);
  const auto f = seed_from(h, kClang);
  EXPECT_EQ(f->check[wire::kHooksClang], 29u * 102) << "the median still the old machine's";
  ASSERT_EQ(f->alternates, 5u);
  EXPECT_EQ(f->alternate_check[4][wire::kHooksClang], 29u * 150) << "the new machine's, for its next check";
  for (uint64_t k = 151; k < 155; ++k) learn(h, failed_check(k), kClang);
  EXPECT_EQ(seed_from(h, kClang)->check[wire::kHooksClang], 29u * 151) << "five measurements later, the median too";
}

// A measured set checked again at a process's exit: the largest change over the sets the
// recording used, a ratio less one; none where no used set was checked again.
TEST(CalibrationCache, TheChangeAtTheExitIsTheLargestOfTheUsedSetsCheckedAgain) {
  wire::CalibrationFile f = measured_file(100);
  EXPECT_FALSE(change_at_exit(f, kClang)) << "not checked again";
  f.rechecked_sets = kClang | 1u << wire::kHooksGcc;
  f.recheck_change_permille[wire::kHooksClang] = -30;
  f.recheck_change_permille[wire::kHooksGcc] = 240;
  EXPECT_DOUBLE_EQ(*change_at_exit(f, kClang), -0.03);
  EXPECT_DOUBLE_EQ(*change_at_exit(f, kClang | 1u << wire::kHooksGcc), 0.24);
  EXPECT_FALSE(change_at_exit(f, 1u << 2)) << "a set the recording did not use";
}

TEST(CalibrationCache, ASeedNeverCheckedOrAnotherSetTeachesNothing) {
  CalibrationHistory h = history_of({100, 101, 102});
  const auto seeded = seed_from(h, kClang);
  EXPECT_EQ(outcome_of(*seeded, kClang), CalibrationOutcome::Unchecked)
      << "the hooks' cost too small a share for a check, or the program made no hooked call";
  EXPECT_STREQ(calibration_outcome_name(CalibrationOutcome::Unchecked), "unchecked");
  EXPECT_FALSE(learn(h, *seeded, kClang));
  EXPECT_EQ(outcome_of(measured_file(100), 1u << wire::kHooksGcc), CalibrationOutcome::None);
  wire::CalibrationFile zero = measured_file(100);
  zero.check[wire::kHooksClang] = 0;
  learn(h, zero, kClang);
  EXPECT_EQ(h.entries.size(), 3u) << "a measurement without its check value is not kept";
}

TEST(CalibrationCache, HistoryRoundTripsAndRefusesWhatIsNotIt) {
  const CalibrationHistory h = history_of({100, 101, 102});
  const std::string text = history_json(h, "key A");
  const auto back = parse_history(text, "key A");
  ASSERT_TRUE(back);
  ASSERT_EQ(back->entries.size(), 3u);
  EXPECT_EQ(back->entries[2].costs[wire::kHooksClang].caller, 40u * 102);
  EXPECT_DOUBLE_EQ(back->entries[1].ticks_per_ns, 2.101);
  EXPECT_FALSE(parse_history(text, "key B")) << "another machine, runtime or boot";
  EXPECT_FALSE(parse_history("", "key A"));
  EXPECT_FALSE(parse_history("{\"key\":\"key A\",\"entries\":[1]}", "key A"));
  EXPECT_FALSE(parse_history("{\"key\":\"key A\",\"entries\":[{\"ticks_per_ns\":-1}]}", "key A"));
  EXPECT_TRUE(parse_history("{\"key\":\"key A\",\"uses\":3,\"entries\":[]}", "key A")) << "a file from before";
  EXPECT_FALSE(parse_history(text.substr(0, text.size() / 2), "key A"));
}

// A cache of the test's own (XDG_CACHE_HOME in a scratch directory), the runtime file that
// keys it, and a recording's directory where the test leaves what a runtime would.
struct CacheScene {
  test_support::ScratchDir scratch;
  const std::filesystem::path root = scratch.path();
  const test_support::ScopedEnv cache_home{"XDG_CACHE_HOME", root.string()};
  const std::string runtime = (root / "runtime.so").string();
  const std::string dir = (root / "recording").string();
  CacheScene() {
    std::filesystem::create_directories(dir);
    std::ofstream(runtime) << "runtime";
  }
  std::filesystem::path file() const { return std::filesystem::path(dir) / "calibration"; }
  void leave(const wire::CalibrationFile& f) const {
    std::ofstream(file(), std::ios::binary).write(reinterpret_cast<const char*>(&f), sizeof f);
  }
};

// The cache in a directory of its own: seeded once three recordings measured, learning from
// the calibration file each recording leaves.
TEST(CalibrationCache, SeedsARecordingDirectoryAndLearnsFromIt) {
  namespace fs = std::filesystem;
  const CacheScene scene;
  const auto cache = CalibrationCache::open(scene.runtime, kClang);
  ASSERT_FALSE(cache.path().empty());
  EXPECT_EQ(fs::path(cache.path()).parent_path(), scene.root / "callprof");
  for (uint64_t k : {100, 101, 102}) {
    fs::remove(scene.file());
    cache.seed(scene.dir, false);
    EXPECT_FALSE(fs::exists(scene.file())) << "nothing to seed yet";
    scene.leave(measured_file(k));
    EXPECT_EQ(cache.learn_from(scene.dir).outcome, CalibrationOutcome::Measured);
  }
  fs::remove(scene.file());
  cache.seed(scene.dir, true);
  EXPECT_FALSE(fs::exists(scene.file())) << "a measurement is due";
  cache.seed(scene.dir, false);
  auto seeded = read_calibration_file(scene.dir);
  ASSERT_TRUE(seeded);
  EXPECT_EQ(seeded->cached_sets, kClang);
  EXPECT_EQ(seeded->check[wire::kHooksClang], 29u * 101);
  seeded->checked_sets = kClang;  // the runtime's check passed
  scene.leave(*seeded);
  const auto written = fs::last_write_time(cache.path());
  fs::last_write_time(cache.path(), written - std::chrono::hours(1));
  EXPECT_EQ(cache.learn_from(scene.dir).outcome, CalibrationOutcome::Cached);
  EXPECT_EQ(fs::last_write_time(cache.path()), written - std::chrono::hours(1)) << "a checked use writes nothing";
  std::ofstream(cache.path()) << "{ not json";
  fs::remove(scene.file());
  cache.seed(scene.dir, false);
  EXPECT_FALSE(fs::exists(scene.file())) << "a damaged cache seeds nothing";
  scene.leave(measured_file(100));
  EXPECT_EQ(cache.learn_from(scene.dir).outcome, CalibrationOutcome::Measured) << "and is written anew";
  std::ifstream in(cache.path());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"entries\""), std::string::npos) << text;
}

// The ordered clock's hooks cost more: their history is another file. A sampled recording
// is seeded from the history but what it measures stays out of it.
TEST(CalibrationCache, TheOrderedClockHasItsOwnHistoryAndSamplingTeachesNothing) {
  namespace fs = std::filesystem;
  const CacheScene scene;
  const auto plain = CalibrationCache::open(scene.runtime, kClang);
  const auto ordered = CalibrationCache::open(scene.runtime, kClang, {.ordered_clock = true});
  const auto sampled = CalibrationCache::open(scene.runtime, kClang, {.sampled = true});
  EXPECT_NE(ordered.path(), plain.path());
  EXPECT_EQ(sampled.path(), plain.path());
  for (uint64_t k : {100, 101, 102}) {
    scene.leave(measured_file(k));
    EXPECT_EQ(plain.learn_from(scene.dir).outcome, CalibrationOutcome::Measured);
  }
  fs::remove(scene.file());
  ordered.seed(scene.dir, false);
  EXPECT_FALSE(fs::exists(scene.file())) << "no ordered-clock measurement yet";
  sampled.seed(scene.dir, false);
  auto seeded = read_calibration_file(scene.dir);
  ASSERT_TRUE(seeded) << "a sampled recording takes the history's costs";
  EXPECT_EQ(seeded->check[wire::kHooksClang], 29u * 101);
  const auto before = fs::last_write_time(plain.path());
  fs::last_write_time(plain.path(), before - std::chrono::hours(1));
  for (int i = 0; i < 3; ++i) {
    scene.leave(measured_file(500));  // a check failed under samples: measured on the sampled machine
    EXPECT_EQ(sampled.learn_from(scene.dir).outcome, CalibrationOutcome::Measured);
  }
  EXPECT_EQ(fs::last_write_time(plain.path()), before - std::chrono::hours(1)) << "the history is not written";
  fs::remove(scene.file());
  plain.seed(scene.dir, false);
  seeded = read_calibration_file(scene.dir);
  ASSERT_TRUE(seeded);
  EXPECT_EQ(seeded->check[wire::kHooksClang], 29u * 101) << "the median is still the unsampled recordings'";
}

// Without $XDG_CACHE_HOME and $HOME there is no cache: nothing is seeded or written, and
// the recording still says how the runtime had the hooks' costs.
TEST(CalibrationCache, WithoutACacheDirectoryItStillTellsWhatTheRuntimeDid) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("callprof-calibration-nocache-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string runtime = (dir / "runtime.so").string();
  std::ofstream(runtime) << "runtime";
  const CalibrationCache cache = [&] {
    const test_support::ScopedEnv no_cache_home("XDG_CACHE_HOME", std::nullopt), no_home("HOME", std::nullopt);
    return CalibrationCache::open(runtime, kClang);
  }();
  EXPECT_TRUE(cache.path().empty());
  cache.seed(dir.string(), false);
  EXPECT_FALSE(fs::exists(dir / "calibration"));
  const wire::CalibrationFile f = measured_file(100);
  std::ofstream(dir / "calibration", std::ios::binary).write(reinterpret_cast<const char*>(&f), sizeof f);
  EXPECT_EQ(cache.learn_from(dir.string()).outcome, CalibrationOutcome::Measured);
  fs::remove_all(dir);
}

// Every runtime build and boot writes a file of its own: the cache keeps the 16 written last.
TEST(CalibrationCache, KeepsTheSixteenFilesWrittenLast) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("callprof-calibration-files-test-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "callprof");
  fs::create_directories(root / "recording");
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  for (int i = 0; i < 20; ++i) {
    const fs::path f = root / "callprof" / ("calibration-old" + std::to_string(i) + ".json");
    std::ofstream(f) << "{}";
    fs::last_write_time(f, old_time + std::chrono::minutes(i));
  }
  std::ofstream(root / "callprof" / "unrelated.txt") << "kept";
  const test_support::ScopedEnv cache_home("XDG_CACHE_HOME", root.string());
  const std::string runtime = (root / "runtime.so").string();
  std::ofstream(runtime) << "runtime";
  const auto cache = CalibrationCache::open(runtime, kClang);
  ASSERT_FALSE(cache.path().empty());
  const wire::CalibrationFile f = measured_file(100);
  std::ofstream(root / "recording" / "calibration", std::ios::binary)
      .write(reinterpret_cast<const char*>(&f), sizeof f);
  EXPECT_EQ(cache.learn_from((root / "recording").string()).outcome, CalibrationOutcome::Measured);
  size_t kept = 0;
  for (const auto& e : fs::directory_iterator(root / "callprof")) kept += e.path().extension() == ".json";
  EXPECT_EQ(kept, 16u);
  EXPECT_TRUE(fs::exists(cache.path())) << "the one just written stays";
  EXPECT_FALSE(fs::exists(root / "callprof" / "calibration-old4.json")) << "the oldest go";
  EXPECT_TRUE(fs::exists(root / "callprof" / "calibration-old5.json"));
  EXPECT_TRUE(fs::exists(root / "callprof" / "unrelated.txt"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace callprof::record

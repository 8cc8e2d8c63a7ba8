// The recording's calibration file as the runtime writes it (runtime/calibration_store.h):
// the change a process's check again at its exit found, added in place, the larger one kept,
// under the recording directory's lock.
#include "calibration_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace callprof::rt {
namespace {

struct Dir {
  std::string path;
  Dir() {
    char t[] = "/tmp/callprof-store-XXXXXX";
    path = mkdtemp(t);
  }
  ~Dir() { std::filesystem::remove_all(path); }
};

// GCC's hooks' costs as a recording's first process leaves them in `dir`.
SharedCalibration saved_gcc_calibration(const Dir& dir) {
  SharedCalibration c;
  c.ticks_per_ns = 2.5;
  c.sets = 1u << wire::kHooksGcc;
  c.check[wire::kHooksGcc] = 1234;
  save_calibration(dir.path.c_str(), c);
  return c;
}

TEST(CalibrationStore, TheLargerChangeAtTheExitIsKeptAndTheFileStaysWhole) {
  Dir dir;
  saved_gcc_calibration(dir);
  EXPECT_EQ(load_calibration(dir.path.c_str()).rechecked_sets, 0u);

  int32_t first[wire::kHookSets] = {};
  first[wire::kHooksGcc] = -30;
  save_recheck(dir.path.c_str(), 1u << wire::kHooksGcc, first);
  SharedCalibration back = load_calibration(dir.path.c_str());
  EXPECT_EQ(back.rechecked_sets, 1u << wire::kHooksGcc);
  EXPECT_EQ(back.recheck_change_permille[wire::kHooksGcc], -30);

  int32_t smaller[wire::kHookSets] = {};
  smaller[wire::kHooksGcc] = 20;
  save_recheck(dir.path.c_str(), 1u << wire::kHooksGcc, smaller);
  EXPECT_EQ(load_calibration(dir.path.c_str()).recheck_change_permille[wire::kHooksGcc], -30) << "the larger stays";

  int32_t larger[wire::kHookSets] = {};
  larger[wire::kHooksGcc] = 240;
  save_recheck(dir.path.c_str(), 1u << wire::kHooksGcc, larger);
  back = load_calibration(dir.path.c_str());
  EXPECT_EQ(back.recheck_change_permille[wire::kHooksGcc], 240);
  EXPECT_DOUBLE_EQ(back.ticks_per_ns, 2.5) << "the rest of the file as it was";
  EXPECT_EQ(back.check[wire::kHooksGcc], 1234u);
  EXPECT_EQ(back.rechecked_sets, 1u << wire::kHooksGcc) << "no other set said rechecked";
}

// A process that measured costs writes the whole file from what it read as it started: the
// changes found at the exits of processes that ended meanwhile stay, unless its own is larger.
TEST(CalibrationStore, AFileWrittenWholeKeepsTheChangesAtExitItHolds) {
  Dir dir;
  const SharedCalibration c = saved_gcc_calibration(dir);
  int32_t change[wire::kHookSets] = {};
  change[wire::kHooksGcc] = -70;
  save_recheck(dir.path.c_str(), 1u << wire::kHooksGcc, change);

  SharedCalibration later = c;  // read before that exit: no change in it
  later.sets |= 1u << wire::kHooksClang;
  later.check[wire::kHooksClang] = 99;
  save_calibration(dir.path.c_str(), later);
  SharedCalibration back = load_calibration(dir.path.c_str());
  EXPECT_EQ(back.check[wire::kHooksClang], 99u) << "the writer's measurement";
  EXPECT_EQ(back.rechecked_sets, 1u << wire::kHooksGcc);
  EXPECT_EQ(back.recheck_change_permille[wire::kHooksGcc], -70) << "the change of the process that ended first";

  later.rechecked_sets = 1u << wire::kHooksGcc;
  later.recheck_change_permille[wire::kHooksGcc] = 120;
  save_calibration(dir.path.c_str(), later);
  EXPECT_EQ(load_calibration(dir.path.c_str()).recheck_change_permille[wire::kHooksGcc], 120) << "its own, larger";
}

// Processes ending at the same moment each add their change: the largest survives (without
// the directory lock, a process that read the file before the largest was written wrote its
// own back over it, in four runs of five).
TEST(CalibrationStore, ProcessesEndingTogetherKeepTheLargestChange) {
  Dir dir;
  saved_gcc_calibration(dir);
  constexpr int kProcesses = 6, kRounds = 600;
  std::vector<pid_t> children;
  for (int k = 0; k < kProcesses; ++k) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Small changes, and halfway one larger than all: process k's 10000 + k.
      for (int r = 1; r <= kRounds; ++r) {
        int32_t change[wire::kHookSets] = {};
        change[wire::kHooksGcc] = r == kRounds / 2 ? 10000 + k : (k % 2 ? -1 : 1) * (r % 100);
        save_recheck(dir.path.c_str(), 1u << wire::kHooksGcc, change);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(load_calibration(dir.path.c_str()).recheck_change_permille[wire::kHooksGcc], 10000 + kProcesses - 1);
}

// A lock never let go (a child forked while it was held keeps it): the exit waits 10 ms for
// it, then adds its change without it, rather than hang.
TEST(CalibrationStore, ALockHeldElsewhereDelaysTheChangeButNeverStopsIt) {
  Dir dir;
  saved_gcc_calibration(dir);
  const int held = open(dir.path.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX), 0);
  int32_t change[wire::kHookSets] = {};
  change[wire::kHooksGcc] = 55;
  const auto start = std::chrono::steady_clock::now();
  save_recheck(dir.path.c_str(), 1u << wire::kHooksGcc, change);
  const auto waited = std::chrono::steady_clock::now() - start;
  close(held);
  EXPECT_GE(waited, std::chrono::milliseconds(9));
  EXPECT_LT(waited, std::chrono::seconds(2));
  EXPECT_EQ(load_calibration(dir.path.c_str()).recheck_change_permille[wire::kHooksGcc], 55);
}

// Costs of both compilers' hooks taken from callprof's cache, none checked yet.
SharedCalibration saved_cached_calibration(const Dir& dir) {
  SharedCalibration c;
  c.ticks_per_ns = 2.5;
  c.sets = c.cached_sets = (1u << wire::kHooksGcc) | (1u << wire::kHooksClang);
  c.check[wire::kHooksGcc] = 1234;
  c.check[wire::kHooksClang] = 987;
  c.costs[wire::kHooksGcc].leaf_inner = 40;
  c.costs[wire::kHooksClang].leaf_inner = 30;
  save_calibration(dir.path.c_str(), c);
  return c;
}

// Two processes, each checking the costs of the set its hooks use: each adds its set to
// the file's (the second wrote its view of the file over the first's).
TEST(CalibrationStore, CheckedSetsAreAddedToThoseTheFileSays) {
  Dir dir;
  saved_cached_calibration(dir);
  save_checked_sets(dir.path.c_str(), 1u << wire::kHooksGcc);
  save_checked_sets(dir.path.c_str(), 1u << wire::kHooksClang);
  EXPECT_EQ(load_calibration(dir.path.c_str()).checked_sets, (1u << wire::kHooksGcc) | (1u << wire::kHooksClang));
}

// A process that measured Clang's costs writes the file whole from what it read as it
// started: GCC's, checked meanwhile by another process, stays checked where its costs are
// still the file's, and not where the writer has others.
TEST(CalibrationStore, AFileWrittenWholeKeepsTheSetsCheckedMeanwhile) {
  Dir dir;
  const SharedCalibration c = saved_cached_calibration(dir);
  save_checked_sets(dir.path.c_str(), 1u << wire::kHooksGcc);
  SharedCalibration measured = c;  // read before that check
  measured.cached_sets = 1u << wire::kHooksGcc;
  measured.check[wire::kHooksClang] = 1111;
  save_calibration(dir.path.c_str(), measured);
  SharedCalibration back = load_calibration(dir.path.c_str());
  EXPECT_EQ(back.checked_sets, 1u << wire::kHooksGcc);
  EXPECT_EQ(back.check[wire::kHooksClang], 1111u);

  SharedCalibration other = measured;  // GCC's costs not the file's
  other.costs[wire::kHooksGcc].leaf_inner = 41;
  save_calibration(dir.path.c_str(), other);
  EXPECT_EQ(load_calibration(dir.path.c_str()).checked_sets, 0u) << "a check of other costs";
}

TEST(CalibrationStore, NoFileNoRecheck) {
  Dir dir;
  const int32_t change[wire::kHookSets] = {};
  save_recheck(dir.path.c_str(), 1u, change);
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/calibration")) << "nothing to add to: nothing made";
}

}  // namespace
}  // namespace callprof::rt

// The recording's calibration file as the runtime writes it (runtime/calibration_store.h):
// the change a process's check again at its exit found, added in place, the larger one kept.
#include "calibration_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

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

TEST(CalibrationStore, TheLargerChangeAtTheExitIsKeptAndTheFileStaysWhole) {
  Dir dir;
  SharedCalibration c;
  c.ticks_per_ns = 2.5;
  c.sets = 1u << wire::kHooksGcc;
  c.check[wire::kHooksGcc] = 1234;
  save_calibration(dir.path.c_str(), c);
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

TEST(CalibrationStore, NoFileNoRecheck) {
  Dir dir;
  const int32_t change[wire::kHookSets] = {};
  save_recheck(dir.path.c_str(), 1u, change);
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/calibration")) << "nothing to add to: nothing made";
}

}  // namespace
}  // namespace callprof::rt

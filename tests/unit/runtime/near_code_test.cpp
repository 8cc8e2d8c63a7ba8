// The runtime's code near the program's modules (runtime/near_code.h): placed below the
// module when there is room, within a call's reach, and listed once sealed, so that the
// dump names it [callprof-stub].
#include "near_code.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdlib>

namespace callprof::rt {
namespace {

void near_code_test_anchor() {}

TEST(NearCode, AnAreaGoesBelowTheModuleWithinReachAndIsListedOnceSealed) {
  const auto here = reinterpret_cast<uint64_t>(&near_code_test_anchor);
  const uint64_t lo = here & ~uint64_t(0xfff), hi = lo + 0x20000;
  void* area = map_within_reach(lo, hi, 8192);
  ASSERT_NE(area, nullptr);
  const auto at = reinterpret_cast<uint64_t>(area);
  EXPECT_LT(at + 8192, lo) << "below the module: above it lie its data and heap";
  EXPECT_LT(hi + 5 - at, uint64_t(1) << 31) << "a call from the module's end reaches it";
  const NearCodeArea* areas = nullptr;
  const uint32_t before = near_code_areas(&areas);
  auto* code = static_cast<uint8_t*>(area);
  code[0] = 0xc3;  // ret
  ASSERT_TRUE(seal_near_code(area, 8192));
  ASSERT_EQ(near_code_areas(&areas), before + 1);
  EXPECT_EQ(areas[before].start, at);
  EXPECT_EQ(areas[before].end, at + 8192);
  reinterpret_cast<void (*)()>(area)();  // executable now
  // Another area near the same module takes another place.
  void* second = map_within_reach(lo, hi, 4096);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, area);
  munmap(second, 4096);
}

}  // namespace
}  // namespace callprof::rt

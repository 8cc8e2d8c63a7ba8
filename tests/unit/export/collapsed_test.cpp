// The collapsed-stack export's values per path; off-CPU is the one number the format has for
// it: all the time not running, blocked or waiting for a CPU (docs/interop.md).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "export/export.h"
#include "fixtures.h"

namespace callprof {
namespace {

std::string collapsed(Profile p, CollapsedValue value) {
  auto a = Analysis::run(std::move(p), QueryOptions{});
  if (!a) throw std::runtime_error(a.error().message);
  std::ostringstream out;
  const Status s = write_collapsed(*a, value, out);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return out.str();
}

TEST(Collapsed, OffCpuIsBlockedPlusWaitingForACpu) {
  const Profile p = testing::folded(
      "main;work 1000 cpu=500 off=300 preempted=200\n"
      "main;crowded 400 cpu=100 preempted=300\n"
      "main;busy 50 cpu=50\n");
  // (Siblings come last first: the export walks an explicit stack.)
  EXPECT_EQ(collapsed(p, CollapsedValue::Offcpu), "main;crowded 300\nmain;work 500\n");
  EXPECT_EQ(collapsed(p, CollapsedValue::Cpu), "main;busy 50\nmain;crowded 100\nmain;work 500\n");
  EXPECT_EQ(collapsed(p, CollapsedValue::Self), "main;busy 50\nmain;crowded 400\nmain;work 1000\n");
}

}  // namespace
}  // namespace callprof

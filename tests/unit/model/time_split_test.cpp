// model/time_split.h: the one place the switched-out time (the runtime's and the file's
// inclusive off-CPU time) and a node's three-way split are converted and capped.
#include "model/time_split.h"

#include <gtest/gtest.h>

#include "model/metric_table.h"

namespace callprof {
namespace {

TEST(TimeSplit, SwitchedOutTimeSplitsIntoBlockedAndPreempted) {
  EXPECT_EQ(split_switched_out(500, 200).blocked, 300u);
  EXPECT_EQ(split_switched_out(500, 200).preempted, 200u);
  EXPECT_EQ(split_switched_out(600, 600).blocked, 0u) << "all of it preempted";
  EXPECT_EQ(split_switched_out(100, 400).preempted, 100u) << "preempted is capped at the whole";
  EXPECT_EQ(split_switched_out(100, 400).blocked, 0u);
}

TEST(TimeSplit, SelfTimeSplitsThreeWaysAndAddsUp) {
  const SelfSplit s = split_self(1000, 500, 200);
  EXPECT_EQ(s.on_cpu, 500u);
  EXPECT_EQ(s.blocked, 300u);
  EXPECT_EQ(s.preempted, 200u);
  const SelfSplit over = split_self(1000, 1500, 400);  // more switched out than the wall time
  EXPECT_EQ(over.on_cpu, 0u);
  EXPECT_EQ(over.blocked + over.preempted, 1000u);
  EXPECT_EQ(over.preempted, 400u);
  for (uint64_t wall : {0u, 7u, 1000u})
    for (uint64_t out : {0u, 3u, 999u, 5000u})
      for (uint64_t pre : {0u, 2u, 800u, 9000u}) {
        const SelfSplit x = split_self(wall, out, pre);
        EXPECT_EQ(x.on_cpu + x.blocked + x.preempted, wall) << wall << " " << out << " " << pre;
      }
}

TEST(TimeSplit, ARowsSwitchedOutTimeIsBlockedPlusPreempted) {
  Metrics m;
  m[Metric::WallNs] = 1000;
  m[Metric::OffCpuNs] = 300;
  m[Metric::PreemptedNs] = 200;
  EXPECT_EQ(switched_out_ns(m), 500u);
  const SelfSplit s = split_self_of(m);
  EXPECT_EQ(s.on_cpu, 500u);
  EXPECT_EQ(s.blocked, 300u);
  EXPECT_EQ(s.preempted, 200u);
  const SelfSplit unmeasured = split_self_of(m, false);
  EXPECT_EQ(unmeasured.on_cpu, 1000u) << "without the split, all of self is on the CPU";
  EXPECT_EQ(unmeasured.blocked + unmeasured.preempted, 0u);
  MetricTable table;
  table.resize(2);
  table[1][Metric::PreemptedNs] = 40;  // no off-CPU column at all
  EXPECT_EQ(switched_out_ns(table[1]), 40u);
}

}  // namespace
}  // namespace callprof

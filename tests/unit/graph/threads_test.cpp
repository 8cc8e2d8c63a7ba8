// Thread totals and the creation forests, including inconsistent creator links.
#include "graph/threads.h"

#include <gtest/gtest.h>

#include "folded_profile.h"

namespace callprof {
namespace {

TEST(Threads, TotalsPerThread) {
  Profile p = testing::folded("@thread 10 main\nmain;a 10\n@thread 11 w creator=10\nrun 5 calls=3\n");
  ASSERT_EQ(p.threads.size(), 2u);
  const ThreadTotals t[] = {thread_totals(p.threads[0].tree), thread_totals(p.threads[1].tree)};
  EXPECT_EQ(t[0].calls, 2u);
  EXPECT_EQ(t[0].total_ns, 10u);
  EXPECT_EQ(t[1].calls, 3u);
  EXPECT_EQ(t[1].total_ns, 5u);
}

TEST(Threads, ForestIsPreOrderWithDepthsAndSurvivesCycles) {
  Profile p;
  auto add = [&](uint32_t tid, uint32_t creator) {
    Thread t;
    t.tid = tid;
    t.creator_tid = creator;
    p.threads.push_back(std::move(t));
  };
  add(1, 0);
  add(3, 2);  // created by 2, which comes later in the profile
  add(2, 1);
  add(4, 1);
  add(8, 9);  // 8 <-> 9: a cycle, no root
  add(9, 8);
  add(5, 5);  // its own creator
  auto f = thread_forest(p);
  std::vector<std::pair<uint32_t, uint32_t>> got;
  for (auto& e : f) got.push_back({p.threads[e.index].tid, e.depth});
  EXPECT_EQ(got, (std::vector<std::pair<uint32_t, uint32_t>>{{1, 0}, {2, 1}, {3, 2}, {4, 1}, {5, 0}, {8, 0}, {9, 1}}));
}

TEST(Threads, ProcessForestAndEarliestStart) {
  Profile p;
  for (auto [pid, ppid] : {std::pair(20u, 10u), std::pair(10u, 1u), std::pair(30u, 20u)}) {
    Process pr;
    pr.pid = pid;
    pr.ppid = ppid;
    p.processes.push_back(pr);
  }
  auto f = process_forest(p);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(p.processes[f[0].index].pid, 10u);
  EXPECT_EQ(f[2].depth, 2u);
  EXPECT_EQ(earliest_thread_start_ns(p), 0);
  Thread a, b;
  a.start_ns = 500;
  b.start_ns = 200;
  p.threads = {a, b};
  EXPECT_EQ(earliest_thread_start_ns(p), 200);
}

}  // namespace
}  // namespace callprof

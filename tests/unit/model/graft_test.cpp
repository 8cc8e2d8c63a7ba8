// Grafting threads under their creators and merging by start routine move nodes but keep
// every total exactly; lineage resolves exec images and reused tids by start time.
// Designated initializers name only the fields a test is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "model/transform/graft.h"

#include <gtest/gtest.h>

#include <numeric>

#include "folded_profile.h"
#include "model/lineage.h"
#include "model/transform/merge.h"

namespace callprof {
namespace {

FunctionId id(const Profile& p, const std::string& name) {
  for (FunctionId f = 0; f < p.functions.size(); ++f)
    if (p.functions[f].name == name) return f;
  ADD_FAILURE() << "no function " << name;
  return kNoFunction;
}

// 10 main: main>spawn, main>work; 11 created by 10 at main>spawn runs worker>E and creates
// 12 at worker>E (sub>F); 13 created by 10 at main>missing (only main exists) runs worker>G;
// 14's creator is not in the profile.
Profile threads_profile() {
  Profile p = testing::folded(
      "@thread 10 main\nmain;spawn 10 calls=2\nmain;work 100 cpu=60 off=40\n"
      "@thread 11 w1 creator=10\nworker;E 50 calls=5\n"
      "@thread 12 w2 creator=11\nsub;F 30 calls=3\n"
      "@thread 13 w3 creator=10\nworker;G 20\n"
      "@thread 14 orphan creator=99\nx 5\n");
  p.threads[1].creator_path = {id(p, "main"), id(p, "spawn")};
  p.threads[1].start_routine = id(p, "worker");
  p.threads[2].creator_path = {id(p, "worker"), id(p, "E")};
  p.threads[2].start_routine = id(p, "sub");
  p.threads[3].creator_path = {id(p, "main"), 12345};
  p.threads[3].start_routine = id(p, "worker");
  return p;
}

// The cum of the root: every additive metric summed over the whole tree.
Metrics totals(const CallTree& t) { return cumulative(t)[kRootNode]; }

std::vector<size_t> all(const Profile& p) {
  std::vector<size_t> v(p.threads.size());
  std::iota(v.begin(), v.end(), 0);
  return v;
}

NodeId at(const Profile& p, const CallTree& t, std::vector<std::string> path) {
  NodeId n = kRootNode;
  for (const std::string& name : path) {
    n = t.find_child(n, id(p, name));
    if (n == kNoNode) return kNoNode;
  }
  return n;
}

TEST(Graft, ThreadsGoUnderTheirCreatorsPathRecursively) {
  const Profile p = threads_profile();
  const CallTree g = grafted_tree(p, all(p));
  EXPECT_NE(at(p, g, {"main", "spawn", "worker", "E", "sub", "F"}), kNoNode) << "grandchild under its creator";
  EXPECT_NE(at(p, g, {"main", "worker", "G"}), kNoNode) << "longest existing prefix of the creator path";
  EXPECT_NE(at(p, g, {"x"}), kNoNode) << "creator not in the profile: at the root";
  EXPECT_EQ(g.base(at(p, g, {"main", "spawn", "worker", "E"}))[Metric::Calls], 5u);
}

TEST(Graft, PreservesEveryTotalExactly) {
  const Profile p = threads_profile();
  const Metrics expected = totals(merged_tree(p));
  const CallTree g = grafted_tree(p, all(p));
  EXPECT_EQ(totals(g), expected);
  EXPECT_EQ(totals(g)[Metric::WallNs], 215u);
  Profile q = p;
  const CallTree s = merged_by_start_routine(q, all(q));
  EXPECT_EQ(totals(s), expected);
}

TEST(Graft, SubsetPutsThreadsWithUnlistedCreatorsAtTheRoot) {
  const Profile p = threads_profile();
  const std::vector<size_t> some = {1, 2};
  const CallTree g = grafted_tree(p, some);
  EXPECT_NE(at(p, g, {"worker", "E", "sub", "F"}), kNoNode);
  EXPECT_EQ(totals(g)[Metric::WallNs], 80u);
}

TEST(Graft, CreatorCyclesAreBrokenNotLost) {
  Profile p = testing::folded("@thread 1 a creator=2\nf 7\n@thread 2 b creator=1\ng 9\n");
  p.threads[0].creator_path = {id(p, "g")};
  p.threads[1].creator_path = {id(p, "f")};
  const CallTree g = grafted_tree(p, all(p));
  EXPECT_EQ(totals(g)[Metric::WallNs], 16u);
  EXPECT_EQ(totals(g)[Metric::Calls], 2u);
}

TEST(MergeByStartRoutine, OneNodePerRoutine) {
  Profile p = threads_profile();
  const size_t before = p.functions.size();
  const CallTree s = merged_by_start_routine(p, all(p));
  ASSERT_EQ(p.functions.size(), before + 2);
  EXPECT_NE(at(p, s, {"[2 threads] worker", "worker", "E"}), kNoNode);
  EXPECT_NE(at(p, s, {"[2 threads] worker", "worker", "G"}), kNoNode);
  EXPECT_NE(at(p, s, {"[thread] sub", "sub", "F"}), kNoNode);
  EXPECT_NE(at(p, s, {"main", "work"}), kNoNode);
  EXPECT_EQ(p.functions[before].module, kNoModule);
  EXPECT_EQ(s.base(at(p, s, {"[2 threads] worker"}))[Metric::Calls], 0u);
}

TEST(Lineage, ExecImagesAndReusedTidsResolveByStartTime) {
  Profile p;
  p.processes = {Process{.pid = 5, .ppid = 1, .start_ns = 0}, Process{.pid = 5, .ppid = 1, .image = 1, .start_ns = 100},
                 Process{.pid = 6, .ppid = 5, .start_ns = 150}, Process{.pid = 7, .ppid = 5, .start_ns = 50}};
  auto thread = [](uint32_t tid, uint32_t creator, int64_t start) {
    Thread t;
    t.tid = tid;
    t.pid = 5;
    t.creator_tid = creator;
    t.start_ns = start;
    return t;
  };
  p.threads = {thread(5, 0, 0), thread(5, 0, 100), thread(8, 5, 120), thread(9, 5, 10)};
  EXPECT_EQ(process_parents(p), (std::vector<size_t>{kNoIndex, 0, 1, 0}));
  EXPECT_EQ(thread_processes(p), (std::vector<size_t>{0, 1, 1, 0}));
  EXPECT_EQ(thread_creators(p), (std::vector<size_t>{kNoIndex, kNoIndex, 1, 0}));
}

}  // namespace
}  // namespace callprof

#include "model/transform/merge.h"

#include <gtest/gtest.h>

namespace callprof {
namespace {

CallTree tree_of(std::vector<std::pair<std::vector<FunctionId>, uint64_t>> paths) {
  CallTree t;
  for (auto& [p, calls] : paths) {
    NodeId n = t.path(p);
    t.base(n)[Metric::Calls] += calls;
    t.base(n)[Metric::WallNs] += calls * 10;
    t.base(n)[Metric::MinWallNs] = std::min<uint64_t>(t.base(n)[Metric::MinWallNs], calls);
  }
  return t;
}

uint64_t calls_at(const CallTree& t, std::vector<FunctionId> p) {
  NodeId at = kRootNode;
  for (FunctionId f : p) {
    at = t.find_child(at, f);
    if (at == kNoNode) return 0;
  }
  return t.base(at)[Metric::Calls];
}

TEST(Merge, InlinedNodesStayApartFromCalledOnes) {
  CallTree a, b;
  a.base(a.child(a.child(kRootNode, 1), 2, true))[Metric::WallNs] = 3;
  b.base(b.child(b.child(kRootNode, 1), 2, true))[Metric::WallNs] = 4;
  b.base(b.child(b.child(kRootNode, 1), 2))[Metric::WallNs] = 5;
  merge_into(a, b);
  const NodeId one = a.find_child(kRootNode, 1);
  ASSERT_NE(a.find_child(one, 2, true), kNoNode);
  ASSERT_NE(a.find_child(one, 2), kNoNode);
  EXPECT_EQ(a.base(a.find_child(one, 2, true))[Metric::WallNs], 7u);
  EXPECT_EQ(a.base(a.find_child(one, 2))[Metric::WallNs], 5u);
}

TEST(Merge, SamePathsCombineNewPathsAppear) {
  CallTree a = tree_of({{{1, 2}, 3}, {{1, 3}, 1}});
  CallTree b = tree_of({{{1, 2}, 4}, {{5}, 2}});
  merge_into(a, b);
  EXPECT_EQ(calls_at(a, {1, 2}), 7u);
  EXPECT_EQ(calls_at(a, {1, 3}), 1u);
  EXPECT_EQ(calls_at(a, {5}), 2u);
  EXPECT_EQ(a.base(a.find_child(a.find_child(kRootNode, 1), 2))[Metric::MinWallNs], 3u);
}

TEST(Merge, IsCommutativeAndAssociativeOnCalls) {
  CallTree x = tree_of({{{1, 2}, 3}, {{1}, 1}});
  CallTree y = tree_of({{{1, 2, 2}, 2}});
  CallTree z = tree_of({{{4}, 5}, {{1, 2}, 1}});
  CallTree xy_z, x_yz, yz, zyx;
  merge_into(xy_z, x);
  merge_into(xy_z, y);
  merge_into(xy_z, z);
  merge_into(yz, y);
  merge_into(yz, z);
  merge_into(x_yz, x);
  merge_into(x_yz, yz);
  merge_into(zyx, z);
  merge_into(zyx, y);
  merge_into(zyx, x);
  for (auto p : std::vector<std::vector<FunctionId>>{{1}, {1, 2}, {1, 2, 2}, {4}}) {
    EXPECT_EQ(calls_at(xy_z, p), calls_at(x_yz, p));
    EXPECT_EQ(calls_at(xy_z, p), calls_at(zyx, p));
  }
  EXPECT_EQ(calls_at(xy_z, {1, 2}), 4u);
}

// The merge appends the nodes under a parent it created without looking them up and looks
// up only under the older nodes: the result must be the tree that inserting every path of
// both, in order, through child() builds, node for node and in sibling order.
TEST(Merge, BuildsTheSameNodesInTheSameOrderAsChildByChild) {
  const std::vector<std::vector<FunctionId>> first{{1, 2}, {1, 3, 4}, {6}};
  const std::vector<std::vector<FunctionId>> second{{1, 3, 5}, {1, 2}, {6, 6, 6}, {7, 1}, {1, 3, 4, 8}};
  CallTree a, b, expected;
  for (const auto& p : first) a.path(p), expected.path(p);
  const std::vector<FunctionId> deep{1, 2, 9};
  b.path(deep);
  b.base(b.child(b.child(kRootNode, 1), 2, true))[Metric::Calls] = 3;
  expected.path(deep);
  expected.child(expected.child(kRootNode, 1), 2, true);
  for (const auto& p : second) b.path(p), expected.path(p);
  merge_into(a, b);
  ASSERT_EQ(a.size(), expected.size());
  for (NodeId i = 0; i < a.size(); ++i) {
    const CallNode &x = a.node(i), &y = expected.node(i);
    EXPECT_EQ(x.parent, y.parent) << i;
    EXPECT_EQ(x.function, y.function) << i;
    EXPECT_EQ(x.first_child, y.first_child) << i;
    EXPECT_EQ(x.next_sibling, y.next_sibling) << i;
    EXPECT_EQ(x.inlined, y.inlined) << i;
  }
  EXPECT_EQ(a.base(a.find_child(a.find_child(kRootNode, 1), 2, true))[Metric::Calls], 3u);
  // A later look-up by child() finds the appended nodes.
  EXPECT_EQ(a.child(a.find_child(kRootNode, 7), 1), expected.find_child(expected.find_child(kRootNode, 7), 1));
}

TEST(Merge, MergedTreeSelectsThreads) {
  Profile p;
  p.threads.resize(2);
  p.threads[0].tid = 10;
  p.threads[0].tree = tree_of({{{1}, 2}});
  p.threads[1].tid = 11;
  p.threads[1].tree = tree_of({{{1}, 5}});
  EXPECT_EQ(calls_at(merged_tree(p), {1}), 7u);
  std::vector<uint32_t> only{11};
  EXPECT_EQ(calls_at(merged_tree(p, only), {1}), 5u);
}

}  // namespace
}  // namespace callprof

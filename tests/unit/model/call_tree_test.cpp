#include "model/call_tree.h"

#include <gtest/gtest.h>

namespace callprof {
namespace {

TEST(CallTree, ChildIsCreatedOnceAndKeepsOrder) {
  CallTree t;
  NodeId a = t.child(kRootNode, 1);
  NodeId b = t.child(a, 2);
  NodeId c = t.child(a, 3);
  EXPECT_EQ(t.child(a, 2), b);
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.children(a), (std::vector<NodeId>{b, c}));
  EXPECT_EQ(t.find_child(a, 9), kNoNode);
  EXPECT_EQ(t.path_to(c), (std::vector<FunctionId>{1, 3}));
  EXPECT_EQ(t.depth(c), 2u);
}

// An inlined frame and a call of the same function under one caller are two nodes.
TEST(CallTree, InlinedIsPartOfANodesIdentity) {
  CallTree t;
  const NodeId a = t.child(kRootNode, 1);
  const NodeId called = t.child(a, 2);
  const NodeId inlined = t.child(a, 2, true);
  EXPECT_NE(called, inlined);
  EXPECT_EQ(t.child(a, 2, true), inlined);
  EXPECT_EQ(t.child(a, 2), called);
  EXPECT_FALSE(t.node(called).inlined);
  EXPECT_TRUE(t.node(inlined).inlined);
  EXPECT_EQ(t.find_child(a, 2, true), inlined);
  EXPECT_EQ(t.find_child(a, 2), called);
  EXPECT_EQ(t.find_child(a, 3, true), kNoNode);
  // A tree built by append() (a file) indexes both kinds when it is first searched.
  CallTree read;
  read.append(kRootNode, 1);
  read.append(1, 2, true);
  read.append(1, 2);
  EXPECT_EQ(read.find_child(1, 2, true), 2u);
  EXPECT_EQ(read.find_child(1, 2), 3u);
  EXPECT_EQ(read.child(1, 2, true), 2u);
}

// Renumbering keeps every node where it was; lookups then go by the new ids only.
TEST(CallTree, RenumberFunctionsInPlace) {
  CallTree t;
  const NodeId a = t.child(kRootNode, 0);
  const NodeId b = t.child(a, 1, /*inlined=*/true);
  const NodeId c = t.child(a, 2);
  const std::vector<FunctionId> map{5, 3, 4};
  ASSERT_TRUE(t.renumber_functions(map));
  EXPECT_EQ(t.path_to(b), (std::vector<FunctionId>{5, 3}));
  EXPECT_EQ(t.find_child(a, 3, true), b);
  EXPECT_EQ(t.find_child(a, 4), c);
  EXPECT_EQ(t.find_child(a, 2), kNoNode) << "the old id is gone from the index";
  EXPECT_EQ(t.child(kRootNode, 5), a);
  EXPECT_FALSE(t.renumber_functions(std::vector<FunctionId>{0, 1})) << "function 5 is outside the map";
  EXPECT_EQ(t.node(a).function, 5u) << "and nothing was renumbered";
}

TEST(CallTree, CumulativeSumsSubtreeAndKeepsOwnMinMax) {
  CallTree t;
  std::vector<FunctionId> p1{1, 2}, p2{1, 3};
  NodeId a = t.path(std::vector<FunctionId>{1});
  NodeId b = t.path(p1), c = t.path(p2);
  t.base(a)[Metric::WallNs] = 5;
  t.base(b)[Metric::WallNs] = 7;
  t.base(c)[Metric::WallNs] = 11;
  t.base(a)[Metric::MaxWallNs] = 5;
  t.base(b)[Metric::MaxWallNs] = 7;
  auto cum = cumulative(t);
  EXPECT_EQ(cum[a][Metric::WallNs], 23u);
  EXPECT_EQ(cum[kRootNode][Metric::WallNs], 23u);
  EXPECT_EQ(cum[a][Metric::MaxWallNs], 5u);
}

// Totals of a few metrics only: those columns as cumulative() has them, no others.
TEST(CallTree, CumulativeOfSomeMetricsHasOnlyTheirColumns) {
  CallTree t;
  const NodeId a = t.path(std::vector<FunctionId>{1});
  const NodeId b = t.path(std::vector<FunctionId>{1, 2});
  t.base(a)[Metric::WallNs] = 5;
  t.base(b)[Metric::WallNs] = 7;
  t.base(a)[Metric::CpuNs] = 3;
  t.base(b)[Metric::CpuNs] = 2;
  t.base(b)[Metric::MaxWallNs] = 7;
  const std::vector<Metric> some{Metric::WallNs, Metric::MaxWallNs, Metric::Calls};
  const MetricTable all = cumulative(t), part = cumulative(t, some);
  ASSERT_EQ(part.size(), t.size());
  EXPECT_TRUE(part.has(Metric::WallNs) && part.has(Metric::MaxWallNs));
  EXPECT_FALSE(part.has(Metric::CpuNs)) << "not asked for";
  EXPECT_FALSE(part.has(Metric::Calls)) << "asked for, but the tree has no such column";
  for (NodeId n = 0; n < t.size(); ++n) {
    EXPECT_EQ(part[n][Metric::WallNs], all[n][Metric::WallNs]);
    EXPECT_EQ(part[n][Metric::MaxWallNs], all[n][Metric::MaxWallNs]);
  }
  EXPECT_EQ(part[a][Metric::WallNs], 12u);
}

TEST(CallTree, RecursionLevelsCountSameFunctionAncestors) {
  CallTree t;
  // main -> f -> g -> f -> f   (mutual then direct recursion)
  std::vector<FunctionId> p{0, 1, 2, 1, 1};
  NodeId leaf = t.path(p);
  auto level = recursion_levels(t);
  std::vector<uint32_t> along;
  for (NodeId n = leaf; n != kRootNode; n = t.node(n).parent) along.insert(along.begin(), level[n]);
  EXPECT_EQ(along, (std::vector<uint32_t>{0, 0, 0, 1, 2}));
}

TEST(Metrics, MergeUsesEachMetricsKind) {
  Metrics a, b;
  a[Metric::Calls] = 2;
  b[Metric::Calls] = 3;
  a[Metric::MinWallNs] = 10;
  b[Metric::MinWallNs] = 4;
  a[Metric::MaxWallNs] = 10;
  b[Metric::MaxWallNs] = 4;
  Metrics empty;
  a.merge(b);
  EXPECT_EQ(a[Metric::Calls], 5u);
  EXPECT_EQ(a[Metric::MinWallNs], 4u);
  EXPECT_EQ(a[Metric::MaxWallNs], 10u);
  Metrics before = a;
  a.merge(empty);
  EXPECT_EQ(a, before);
  EXPECT_FALSE(empty.has_min(Metric::MinWallNs));
}

}  // namespace
}  // namespace callprof

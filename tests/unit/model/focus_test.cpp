// Focus re-roots the tree at chosen functions: their outermost subtrees merged under the root,
// cum kept exactly, recursion counted once. Hand-computed cases, then a randomized property.
#include "model/transform/focus.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tree_fixtures.h"

namespace callprof {
namespace {

using testing::at;
using testing::id;
using testing::kCounterExample;
using testing::named;
using testing::random_tree;

std::vector<FunctionId> functions_of(const CallTree& t, const std::vector<NodeId>& nodes) {
  std::vector<FunctionId> out;
  for (NodeId n : nodes) out.push_back(t.node(n).function);
  return out;
}

TEST(Focus, OnAKeepsItsExactCumWithBAndCUnderIt) {
  const Profile p = testing::folded(kCounterExample);
  const CallTree& tree = p.threads[0].tree;
  const CallTree f = focused_tree(tree, named(p, {"A"}));
  ASSERT_EQ(functions_of(f, f.children(kRootNode)), (std::vector<FunctionId>{id(p, "A")}));
  const NodeId a = at(p, f, {"A"});
  EXPECT_EQ(cumulative(f)[a], cumulative(tree)[at(p, tree, {"main", "A"})]);
  EXPECT_EQ(cumulative(f)[a][Metric::WallNs], 162000000u);  // 1 + 1 + 120 + 40 ms
  EXPECT_EQ(cumulative(f)[a][Metric::Calls], 83u);          // A, B, C once; D 80 times
  EXPECT_EQ(functions_of(f, f.children(a)), (std::vector<FunctionId>{id(p, "B"), id(p, "C")}));
  EXPECT_EQ(f.base(at(p, f, {"A", "B", "D"}))[Metric::WallNs], 120000000u);
  EXPECT_EQ(f.base(at(p, f, {"A", "C", "D"}))[Metric::Calls], 40u);
  EXPECT_EQ(f.base(kRootNode), Metrics()) << "the root carries nothing";
}

TEST(Focus, OnDMergesBothDNodesByKind) {
  const Profile p = testing::folded(kCounterExample);
  const CallTree f = focused_tree(p.threads[0].tree, named(p, {"D"}));
  ASSERT_EQ(f.size(), 2u);
  const Metrics& d = f.base(at(p, f, {"D"}));
  EXPECT_EQ(d[Metric::Calls], 80u);
  EXPECT_EQ(d[Metric::WallNs], 160000000u);
  EXPECT_EQ(d[Metric::CpuNs], 140000000u);
  EXPECT_EQ(d[Metric::MinWallNs], 900000u);
  EXPECT_EQ(d[Metric::MaxWallNs], 3100000u);
}

TEST(Focus, NothingMatchingLeavesTheRootAlone) {
  const Profile p = testing::folded(kCounterExample);
  const CallTree f = focused_tree(p.threads[0].tree, [](FunctionId) { return false; });
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(f.base(kRootNode), Metrics());
}

TEST(Focus, NestedMatchesStayInsideTheOutermostSubtree) {
  const Profile p = testing::folded(kCounterExample);
  const CallTree f = focused_tree(p.threads[0].tree, named(p, {"A", "D"}));
  EXPECT_EQ(functions_of(f, f.children(kRootNode)), (std::vector<FunctionId>{id(p, "A")}));
  EXPECT_EQ(cumulative(f)[kRootNode][Metric::WallNs], 162000000u) << "D is not counted again at the root";
}

TEST(Focus, SeveralFunctionsEachBecomeARootChild) {
  const Profile p = testing::folded(kCounterExample);
  const CallTree f = focused_tree(p.threads[0].tree, named(p, {"B", "C"}));
  EXPECT_EQ(functions_of(f, f.children(kRootNode)), (std::vector<FunctionId>{id(p, "B"), id(p, "C")}));
  const MetricTable cum = cumulative(f);
  EXPECT_EQ(cum[at(p, f, {"B"})][Metric::WallNs], 121000000u);
  EXPECT_EQ(cum[at(p, f, {"C"})][Metric::WallNs], 41000000u);
}

TEST(Focus, MutualRecursionCountsTheOutermostNodeOnce) {
  // main > A > B > A > B: focusing on B keeps the outer B's subtree, the inner B inside it.
  const Profile p = testing::folded("main;A;B;A;B 10 calls=2\nmain;A;B 7\nmain;A 5\n");
  const CallTree& tree = p.threads[0].tree;
  const CallTree f = focused_tree(tree, named(p, {"B"}));
  ASSERT_EQ(functions_of(f, f.children(kRootNode)), (std::vector<FunctionId>{id(p, "B")}));
  EXPECT_EQ(f.size(), 4u);  // root, B, B > A, B > A > B
  const MetricTable cum = cumulative(f);
  EXPECT_EQ(cum[at(p, f, {"B"})], cumulative(tree)[at(p, tree, {"main", "A", "B"})]);
  EXPECT_EQ(cum[at(p, f, {"B"})][Metric::WallNs], 17u);
  EXPECT_EQ(cum[at(p, f, {"B"})][Metric::Calls], 4u);  // outer B, inner A, inner B twice
  const NodeId inner = at(p, f, {"B", "A", "B"});
  ASSERT_NE(inner, kNoNode) << "the inner B stays inside the outer one";
  EXPECT_EQ(f.base(inner)[Metric::Calls], 2u);
}

TEST(Focus, HundredThousandDeepChainNeedsNoRecursion) {
  CallTree tree;
  NodeId n = kRootNode;
  for (int i = 0; i < 100000; ++i) {
    n = tree.child(n, FunctionId(i % 2));  // X > Y > X > Y ...
    tree.base(n)[Metric::Calls] = 1;
    tree.base(n)[Metric::WallNs] = 3;
  }
  const CallTree f = focused_tree(tree, [](FunctionId fn) { return fn == 1; });
  EXPECT_EQ(f.size(), 100000u);  // everything below the first Y
  EXPECT_EQ(cumulative(f)[kRootNode][Metric::WallNs], 3u * 99999);
}

TEST(Focus, RandomTreesMatchANaiveReRooting) {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 200; ++round) {
    const CallTree tree = random_tree(rng, 1 + rng() % 80, 5);
    std::vector<bool> chosen(5);
    for (size_t f = 0; f < chosen.size(); ++f) chosen[f] = rng() % 2;
    const CallTree f = focused_tree(tree, [&](FunctionId fn) { return chosen[fn]; });
    // Naively: each node below its outermost matching ancestor-or-self, by the path from there.
    std::map<std::vector<FunctionId>, Metrics> expected;
    Metrics outermost_cum;
    const MetricTable cum = cumulative(tree);
    for (NodeId n = 1; n < tree.size(); ++n) {
      const std::vector<FunctionId> path = tree.path_to(n);
      size_t top = 0;
      while (top < path.size() && !chosen[path[top]]) ++top;
      if (top == path.size()) continue;
      expected[std::vector<FunctionId>(path.begin() + long(top), path.end())].merge(tree.base(n));
      if (top + 1 == path.size()) outermost_cum.add_sums(cum[n]);
    }
    ASSERT_EQ(f.size(), expected.size() + 1) << "round " << round;
    for (NodeId n = 1; n < f.size(); ++n) EXPECT_EQ(f.base(n), expected[f.path_to(n)]) << "round " << round;
    Metrics root_children_cum;
    const MetricTable fcum = cumulative(f);
    for (NodeId c : f.children(kRootNode)) root_children_cum.add_sums(fcum[c]);
    EXPECT_EQ(root_children_cum, outermost_cum) << "round " << round;
  }
}

}  // namespace
}  // namespace callprof

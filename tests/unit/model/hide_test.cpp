// Hide folds functions into their callers: self cost moves up, children move up and merge,
// every kept node's totals and calls stay. Hand-computed cases, then a randomized property.
#include "model/transform/hide.h"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(Hide, BFoldsIntoAAndDMovesUnderA) {
  const Profile p = testing::folded(kCounterExample);
  const CallTree& tree = p.threads[0].tree;
  const CallTree h = hidden_tree(tree, named(p, {"B"}));
  EXPECT_EQ(at(p, h, {"main", "A", "B"}), kNoNode);
  const Metrics& a = h.base(at(p, h, {"main", "A"}));
  const Metrics& a_before = tree.base(at(p, tree, {"main", "A"}));
  EXPECT_EQ(a[Metric::WallNs], 1000000u) << "B's self";
  EXPECT_EQ(a[Metric::Calls], 1u) << "A's calls, not B's";
  EXPECT_EQ(a[Metric::MinWallNs], a_before[Metric::MinWallNs]);
  EXPECT_EQ(a[Metric::MaxWallNs], a_before[Metric::MaxWallNs]);
  const Metrics& d = h.base(at(p, h, {"main", "A", "D"}));
  EXPECT_EQ(d, tree.base(at(p, tree, {"main", "A", "B", "D"}))) << "merged with nothing";
  EXPECT_EQ(d[Metric::Calls], 40u);
  EXPECT_EQ(cumulative(h)[at(p, h, {"main", "A"})][Metric::WallNs], 162000000u) << "A's total unchanged";
  EXPECT_EQ(h.base(at(p, h, {"main", "A", "C", "D"}))[Metric::WallNs], 40000000u);
}

TEST(Hide, BAndCTogetherMergeTheirDsByKind) {
  const Profile p = testing::folded(kCounterExample);
  const CallTree h = hidden_tree(p.threads[0].tree, named(p, {"B", "C"}));
  const Metrics& d = h.base(at(p, h, {"main", "A", "D"}));
  EXPECT_EQ(d[Metric::Calls], 80u);
  EXPECT_EQ(d[Metric::WallNs], 160000000u);
  EXPECT_EQ(d[Metric::MinWallNs], 900000u);
  EXPECT_EQ(d[Metric::MaxWallNs], 3100000u);
  EXPECT_EQ(h.base(at(p, h, {"main", "A"}))[Metric::WallNs], 2000000u);
  EXPECT_EQ(h.children(at(p, h, {"main", "A"})).size(), 1u);
}

TEST(Hide, RecursiveFunctionFoldsAllTheWayIntoItsFirstKeptCaller) {
  // main > X > X > X (> Y): every X goes; Y lands under main, the Xs' self in main.
  const Profile p = testing::folded("main;X;X;X 30 calls=3\nmain;X;X;X;Y 6 calls=2\nmain;X 4\nmain 1\n");
  const CallTree& tree = p.threads[0].tree;
  const CallTree h = hidden_tree(tree, named(p, {"X"}));
  ASSERT_EQ(h.size(), 3u);  // root, main, main > Y
  const NodeId main = at(p, h, {"main"});
  EXPECT_EQ(h.base(main)[Metric::WallNs], 35u);
  EXPECT_EQ(h.base(main)[Metric::Calls], 1u);
  EXPECT_EQ(h.base(at(p, h, {"main", "Y"}))[Metric::Calls], 2u);
  EXPECT_EQ(cumulative(h)[main][Metric::WallNs], cumulative(tree)[at(p, tree, {"main"})][Metric::WallNs]);
}

TEST(Hide, KeptFunctionUnderAHiddenOneBecomesItsOwnCallee) {
  // main > A > B > A with B hidden: the inner A is a child of the outer one, not merged into it.
  const Profile p = testing::folded("main;A;B;A 10\nmain;A 5\n");
  const CallTree h = hidden_tree(p.threads[0].tree, named(p, {"B"}));
  ASSERT_NE(at(p, h, {"main", "A", "A"}), kNoNode);
  EXPECT_EQ(h.base(at(p, h, {"main", "A", "A"}))[Metric::WallNs], 10u);
  EXPECT_EQ(h.base(at(p, h, {"main", "A"}))[Metric::WallNs], 5u);
}

TEST(Hide, RootChildFoldsIntoTheRoot) {
  const Profile p = testing::folded("main 5\nmain;A 10\nmain;B 3 calls=3\n");
  const CallTree h = hidden_tree(p.threads[0].tree, named(p, {"main"}));
  EXPECT_EQ(h.children(kRootNode), (std::vector<NodeId>{at(p, h, {"A"}), at(p, h, {"B"})}));
  EXPECT_EQ(h.base(kRootNode)[Metric::WallNs], 5u);
  EXPECT_EQ(h.base(kRootNode)[Metric::Calls], 0u) << "main's calls are not the root's";
  EXPECT_EQ(cumulative(h)[kRootNode][Metric::WallNs], 18u);
  EXPECT_EQ(h.base(at(p, h, {"B"}))[Metric::Calls], 3u);
}

TEST(Hide, NothingMatchingCopiesTheTree) {
  const Profile p = testing::folded(kCounterExample);
  const CallTree& tree = p.threads[0].tree;
  const CallTree h = hidden_tree(tree, [](FunctionId) { return false; });
  ASSERT_EQ(h.size(), tree.size());
  for (NodeId n = 0; n < tree.size(); ++n) {
    EXPECT_EQ(h.path_to(n), tree.path_to(n));
    EXPECT_EQ(h.base(n), tree.base(n));
  }
}

TEST(Hide, HundredThousandDeepChainNeedsNoRecursion) {
  CallTree tree;
  NodeId n = kRootNode;
  for (int i = 0; i < 100000; ++i) {
    n = tree.child(n, FunctionId(i % 2));  // X > Y > X > Y ...
    tree.base(n)[Metric::Calls] = 1;
    tree.base(n)[Metric::WallNs] = 3;
  }
  const CallTree h = hidden_tree(tree, [](FunctionId fn) { return fn == 1; });
  EXPECT_EQ(h.size(), 50001u);  // X > X > ... 50,000 deep
  EXPECT_EQ(cumulative(h)[kRootNode][Metric::WallNs], 300000u);
  EXPECT_EQ(cumulative(h)[kRootNode][Metric::Calls], 50000u);
}

// Every additive metric except the call counts, which hiding drops with the hidden nodes.
Metrics without_calls(Metrics m) {
  m[Metric::Calls] = m[Metric::IndirectCalls] = 0;
  m[Metric::MinWallNs] = Metrics::kUnset;
  m[Metric::MaxWallNs] = 0;
  return m;
}

TEST(Hide, RandomTreesMatchANaiveFoldAndKeepTotals) {
  std::mt19937 rng(20240612);
  for (int round = 0; round < 200; ++round) {
    const CallTree tree = random_tree(rng, 1 + rng() % 80, 5);
    std::vector<bool> hidden(5);
    for (size_t f = 0; f < hidden.size(); ++f) hidden[f] = rng() % 2;
    const CallTree h = hidden_tree(tree, [&](FunctionId fn) { return hidden[fn]; });
    // Naively: a node lands at its path with hidden functions dropped; a hidden node's self goes
    // to the path of its kept ancestors.
    std::map<std::vector<FunctionId>, Metrics> expected;
    std::map<std::vector<FunctionId>, Metrics> expected_cum;  // over kept nodes of that kept path
    const MetricTable cum = cumulative(tree);
    for (NodeId n = 1; n < tree.size(); ++n) {
      std::vector<FunctionId> kept = tree.path_to(n);
      std::erase_if(kept, [&](FunctionId fn) { return hidden[fn]; });
      if (!hidden[tree.node(n).function]) {
        expected[kept].merge(tree.base(n));
        expected_cum[kept].add_sums(without_calls(cum[n]));
      } else {
        expected[kept].add_sums(without_calls(tree.base(n)));
      }
    }
    expected[{}].merge(tree.base(kRootNode));
    ASSERT_EQ(h.size(), expected.size()) << "round " << round;
    const MetricTable hcum = cumulative(h);
    for (NodeId n = 0; n < h.size(); ++n) {
      EXPECT_EQ(h.base(n), expected[h.path_to(n)]) << "round " << round;
      if (n != kRootNode) {
        EXPECT_EQ(without_calls(hcum[n]), expected_cum[h.path_to(n)]) << "round " << round;
      }
    }
    EXPECT_EQ(without_calls(hcum[kRootNode]), without_calls(cum[kRootNode])) << "grand total, round " << round;
  }
}

}  // namespace
}  // namespace callprof

// Callers-of: every path reaching a function, bottom-up, with its calls, self and total summed
// over the inverted tree and recursion counted once. Hand-computed cases, then a randomized
// comparison with a naive inversion.
#include "model/transform/invert.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
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

// The inverted node for a bottom-up path: {"D", "B"} is "B > D".
TEST(Invert, CallersOfDSplitItsTimeThreeToOne) {
  const Profile p = testing::folded(kCounterExample);
  const InvertedTree inv = inverted_tree(p.threads[0].tree, named(p, {"D"}));
  const CallTree& t = inv.tree;
  ASSERT_EQ(t.children(kRootNode), (std::vector<NodeId>{at(p, t, {"D"})}));
  const NodeId d = at(p, t, {"D"}), b = at(p, t, {"D", "B"}), c = at(p, t, {"D", "C"});
  EXPECT_EQ(t.children(d), (std::vector<NodeId>{b, c}));
  EXPECT_EQ(inv.self[d][Metric::Calls], 80u);
  EXPECT_EQ(inv.total[d][Metric::WallNs], 160000000u);
  EXPECT_EQ(inv.self[b][Metric::Calls], 40u);
  EXPECT_EQ(inv.total[b][Metric::WallNs], 120000000u);
  EXPECT_EQ(inv.self[c][Metric::Calls], 40u);
  EXPECT_EQ(inv.total[c][Metric::WallNs], 40000000u);
  EXPECT_EQ(4 * inv.total[b][Metric::WallNs], 3 * inv.total[d][Metric::WallNs]) << "75 %";
  EXPECT_EQ(4 * inv.total[c][Metric::WallNs], 1 * inv.total[d][Metric::WallNs]) << "25 %";
  EXPECT_EQ(inv.self[d][Metric::MinWallNs], 900000u);
  EXPECT_EQ(inv.self[d][Metric::MaxWallNs], 3100000u);
  EXPECT_EQ(inv.self[b][Metric::MinWallNs], 2900000u);
  EXPECT_EQ(inv.total[b][Metric::CpuNs], 100000000u);
  for (NodeId below : {b, c}) {
    const NodeId a = at(p, t, {"D", t.node(below).function == id(p, "B") ? "B" : "C", "A"});
    ASSERT_NE(a, kNoNode);
    EXPECT_EQ(t.children(below), (std::vector<NodeId>{a}));
    const NodeId main = t.find_child(a, id(p, "main"));
    ASSERT_NE(main, kNoNode);
    EXPECT_EQ(t.children(a), (std::vector<NodeId>{main}));
    EXPECT_TRUE(t.children(main).empty());
    EXPECT_EQ(inv.total[main], inv.total[below]);
    EXPECT_EQ(inv.self[main], inv.self[below]);
  }
  EXPECT_EQ(inv.self[kRootNode], Metrics());
  EXPECT_EQ(inv.total[kRootNode], Metrics());
  EXPECT_EQ(t.base(d), Metrics()) << "the numbers live in self and total";
}

TEST(Invert, NothingMatchingGivesTheRootAlone) {
  const Profile p = testing::folded(kCounterExample);
  const InvertedTree inv = inverted_tree(p.threads[0].tree, [](FunctionId) { return false; });
  EXPECT_EQ(inv.tree.size(), 1u);
  EXPECT_EQ(inv.self.size(), 1u);
  EXPECT_EQ(inv.total.size(), 1u);
}

TEST(Invert, DirectRecursionCountsTotalOnceAndCallsEveryTime) {
  // main > X > X > X: X1 and X2 once each without self, X3 3 calls 30 ns.
  const Profile p = testing::folded("main;X;X;X 30 calls=3\n");
  const InvertedTree inv = inverted_tree(p.threads[0].tree, named(p, {"X"}));
  const CallTree& t = inv.tree;
  auto calls = [&](std::vector<std::string> path) { return inv.self[at(p, t, path)][Metric::Calls]; };
  auto wall = [&](std::vector<std::string> path) { return inv.total[at(p, t, path)][Metric::WallNs]; };
  EXPECT_EQ(calls({"X"}), 5u);
  EXPECT_EQ(wall({"X"}), 30u) << "the outermost X's cum, once";
  EXPECT_EQ(inv.self[at(p, t, {"X"})][Metric::WallNs], 30u);
  EXPECT_EQ(calls({"X", "main"}), 1u);
  EXPECT_EQ(wall({"X", "main"}), 30u);
  EXPECT_EQ(calls({"X", "X"}), 4u);
  EXPECT_EQ(wall({"X", "X"}), 0u) << "inner instances add no total";
  EXPECT_EQ(calls({"X", "X", "main"}), 1u);
  EXPECT_EQ(calls({"X", "X", "X"}), 3u);
  EXPECT_EQ(calls({"X", "X", "X", "main"}), 3u);
  EXPECT_EQ(t.size(), 7u);
}

TEST(Invert, MutualRecursionFollowsEachInnerPathToTheRoot) {
  // main > A > B > A > B: the outer B (1 call, 7 ns self, 17 ns cum), the inner B (2 calls, 10 ns).
  const Profile p = testing::folded("main;A;B;A;B 10 calls=2\nmain;A;B 7\nmain;A 5\n");
  const InvertedTree inv = inverted_tree(p.threads[0].tree, named(p, {"B"}));
  const CallTree& t = inv.tree;
  auto node = [&](std::vector<std::string> path) { return at(p, t, path); };
  EXPECT_EQ(inv.self[node({"B"})][Metric::Calls], 3u);
  EXPECT_EQ(inv.self[node({"B"})][Metric::WallNs], 17u);
  EXPECT_EQ(inv.total[node({"B"})][Metric::WallNs], 17u) << "not 27: the inner B is inside the outer";
  EXPECT_EQ(inv.total[node({"B", "A"})][Metric::WallNs], 17u);
  EXPECT_EQ(inv.self[node({"B", "A", "main"})][Metric::Calls], 1u);
  EXPECT_EQ(inv.total[node({"B", "A", "main"})][Metric::WallNs], 17u);
  EXPECT_EQ(inv.self[node({"B", "A", "B"})][Metric::Calls], 2u);
  EXPECT_EQ(inv.total[node({"B", "A", "B"})][Metric::WallNs], 0u);
  EXPECT_EQ(inv.self[node({"B", "A", "B", "A", "main"})][Metric::WallNs], 10u);
  EXPECT_EQ(t.size(), 7u);
}

TEST(Invert, SeveralFunctionsEachGetTheirOwnView) {
  // A and B both match in main > A > B > A > B: each is its own root child, and a path through
  // the other simply continues.
  const Profile p = testing::folded("main;A;B;A;B 10 calls=2\nmain;A;B 7\nmain;A 5\n");
  const InvertedTree inv = inverted_tree(p.threads[0].tree, named(p, {"A", "B"}));
  const CallTree& t = inv.tree;
  EXPECT_EQ(t.children(kRootNode), (std::vector<NodeId>{at(p, t, {"A"}), at(p, t, {"B"})}));
  EXPECT_EQ(inv.self[at(p, t, {"A"})][Metric::Calls], 2u);
  EXPECT_EQ(inv.total[at(p, t, {"A"})][Metric::WallNs], 22u);
  EXPECT_EQ(inv.total[at(p, t, {"B"})][Metric::WallNs], 17u);
  EXPECT_EQ(inv.self[at(p, t, {"A", "B", "A", "main"})][Metric::Calls], 1u);
  EXPECT_EQ(inv.total[at(p, t, {"A", "B", "A", "main"})][Metric::WallNs], 0u);
}

TEST(Invert, CutCallersGetTheMarker) {
  const Profile p = testing::folded(kCounterExample);
  const FunctionId marker = FunctionId(p.functions.size());
  const InvertedTree inv = inverted_tree(p.threads[0].tree, named(p, {"D"}), 1, marker);
  const CallTree& t = inv.tree;
  EXPECT_EQ(t.size(), 6u);  // root, D, D < B, D < C, and a marker under each
  for (const char* caller : {"B", "C"}) {
    const NodeId n = at(p, t, {"D", caller});
    const NodeId cut = t.find_child(n, marker);
    ASSERT_NE(cut, kNoNode) << caller;
    EXPECT_EQ(t.children(n), (std::vector<NodeId>{cut}));
    EXPECT_EQ(inv.self[cut], Metrics());
    EXPECT_EQ(inv.total[cut], Metrics());
    EXPECT_EQ(inv.self[n][Metric::Calls], 40u) << "the cut node keeps its numbers";
  }
  EXPECT_EQ(inverted_tree(p.threads[0].tree, named(p, {"D"}), 1).tree.size(), 4u) << "no marker asked for";
  EXPECT_EQ(inverted_tree(p.threads[0].tree, named(p, {"D"}), 3, marker).tree.size(), 8u)
      << "a path that ends at the limit is not cut";
}

TEST(Invert, HundredThousandDeepRecursionIsCutQuickly) {
  // One recursive function 10^5 deep: uncut, its reversed paths would hold 5 * 10^9 steps.
  CallTree tree;
  NodeId n = kRootNode;
  for (int i = 0; i < 100000; ++i) {
    n = tree.child(n, 0);
    tree.base(n)[Metric::Calls] = 1;
    tree.base(n)[Metric::WallNs] = 3;
  }
  const FunctionId marker = 1;
  const auto start = std::chrono::steady_clock::now();
  const InvertedTree inv = inverted_tree(
      tree, [](FunctionId f) { return f == 0; }, kInvertedCallerLimit, marker);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0) << "a wide margin: the uncut inversion takes minutes";
  ASSERT_EQ(inv.tree.size(), 1 + (kInvertedCallerLimit + 1) + 1);  // root, X and its callers, marker
  const NodeId x = inv.tree.find_child(kRootNode, 0);
  EXPECT_EQ(inv.self[x][Metric::Calls], 100000u);
  EXPECT_EQ(inv.total[x][Metric::WallNs], 300000u);
  NodeId deepest = x;
  for (size_t level = 0; level < kInvertedCallerLimit; ++level) deepest = inv.tree.find_child(deepest, 0);
  ASSERT_NE(deepest, kNoNode);
  EXPECT_NE(inv.tree.find_child(deepest, marker), kNoNode);
  EXPECT_EQ(inv.self[deepest][Metric::Calls], 100000u - kInvertedCallerLimit);
  EXPECT_EQ(inv.total[deepest][Metric::WallNs], 0u) << "the only outermost X has no callers";
}

TEST(Invert, RandomTreesMatchANaiveInversion) {
  std::mt19937 rng(20240613);
  const FunctionId marker = 99;
  for (int round = 0; round < 300; ++round) {
    const CallTree tree = random_tree(rng, 1 + rng() % 80, 5);
    std::vector<bool> chosen(5);
    for (size_t f = 0; f < chosen.size(); ++f) chosen[f] = rng() % 2;
    const size_t max_depth = round % 2 ? kInvertedCallerLimit : rng() % 4;
    const InvertedTree inv = inverted_tree(
        tree, [&](FunctionId fn) { return chosen[fn]; }, max_depth, marker);
    // Naively: every matching node adds to each prefix of its reversed path.
    std::map<std::vector<FunctionId>, Metrics> self, total;
    std::map<FunctionId, Metrics> outermost_cum;
    const MetricTable cum = cumulative(tree);
    for (NodeId n = 1; n < tree.size(); ++n) {
      const FunctionId fn = tree.node(n).function;
      if (!chosen[fn]) continue;
      std::vector<FunctionId> reversed = tree.path_to(n);
      std::reverse(reversed.begin(), reversed.end());
      const bool outermost = std::count(reversed.begin(), reversed.end(), fn) == 1;
      if (outermost) outermost_cum[fn].add_sums(cum[n]);
      for (size_t len = 1; len <= std::min(reversed.size(), max_depth + 1); ++len) {
        const std::vector<FunctionId> prefix(reversed.begin(), reversed.begin() + long(len));
        self[prefix].merge(tree.base(n));
        Metrics& prefix_total = total[prefix];  // present, if empty, for inner occurrences too
        if (outermost) prefix_total.add_sums(cum[n]);
      }
    }
    const size_t expected_nodes = 1 + self.size();
    size_t markers = 0;
    for (NodeId n = 1; n < inv.tree.size(); ++n) {
      if (inv.tree.node(n).function == marker) {
        ++markers;
        EXPECT_EQ(inv.tree.depth(n), max_depth + 2) << "round " << round;
        EXPECT_EQ(inv.self[n], Metrics());
        continue;
      }
      const std::vector<FunctionId> path = inv.tree.path_to(n);
      EXPECT_EQ(inv.self[n], self[path]) << "round " << round;
      EXPECT_EQ(inv.total[n], total[path]) << "round " << round;
    }
    EXPECT_EQ(inv.tree.size(), expected_nodes + markers) << "round " << round;
    for (NodeId c : inv.tree.children(kRootNode))
      EXPECT_EQ(inv.total[c], outermost_cum[inv.tree.node(c).function]) << "round " << round;
  }
}

}  // namespace
}  // namespace callprof

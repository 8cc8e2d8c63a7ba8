// Tree statistics, hottest paths, node selection for filters, and the module roll-up.
#include "graph/tree_stats.h"

#include <gtest/gtest.h>

#include "folded_profile.h"
#include "graph/modules.h"
#include "graph/node_filter.h"

namespace callprof {
namespace {

using testing::FoldedBuilder;

TEST(TreeStats, CountsShapeAndDeepestRecursion) {
  FoldedBuilder b;
  Profile p = b.build("main;f;f;f 5\nmain;f;g;f 1\nmain;h 7 cpu=3\n");
  const TreeStats s = tree_stats(p.threads[0].tree);
  EXPECT_EQ(s.nodes, 7u);      // main f f f g f h
  EXPECT_EQ(s.edges, 5u);      // main>f f>f f>g g>f main>h
  EXPECT_EQ(s.functions, 4u);  // main f g h
  EXPECT_EQ(s.calls, 7u);
  EXPECT_EQ(s.recursive_calls, 3u);
  EXPECT_EQ(s.max_depth, 4u);
  EXPECT_EQ(s.deepest_recursion_function, b.function("f"));
  EXPECT_EQ(s.deepest_recursion_level, 2u);
  EXPECT_TRUE(s.has_cpu);
  EXPECT_FALSE(s.has_offcpu);
  EXPECT_FALSE(s.has_samples);
}

// Off-CPU time is blocked time or the wait for a CPU: a tree with only the latter measured
// the split all the same; the wait gets its column from 1 % of the time on (crowded).
TEST(TreeStats, TheWaitForACpuIsOffCpuTimeMeasured) {
  const TreeStats s = tree_stats(FoldedBuilder().build("main;h 100 preempted=1\n").threads[0].tree);
  EXPECT_TRUE(s.has_offcpu);
  EXPECT_TRUE(s.cpu_measured());
  EXPECT_TRUE(s.crowded);
  EXPECT_FALSE(tree_stats(FoldedBuilder().build("main;h 101 preempted=1\n").threads[0].tree).crowded);
  EXPECT_TRUE(crowded(1, 100));
  EXPECT_FALSE(crowded(1, 101));
  EXPECT_FALSE(crowded(0, 0));
}

TEST(TreeStats, HottestNodesByBaseWall) {
  FoldedBuilder b;
  Profile p = b.build("main;a 5\nmain;b 9\nmain;a;c 7\n");
  const CallTree& t = p.threads[0].tree;
  auto hot = hottest_nodes(t, 2);
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(t.path_to(hot[0]), (std::vector<FunctionId>{b.function("main"), b.function("b")}));
  EXPECT_EQ(t.node(hot[1]).function, b.function("c"));
  EXPECT_EQ(hottest_nodes(t, 100).size(), 3u);  // main has no self time
}

TEST(NodeFilter, MatchesTheirAncestorsAndSubtrees) {
  FoldedBuilder b;
  Profile p = b.build("main;a;x;y 1\nmain;a;z 1\nmain;b 1\n");
  const CallTree& t = p.threads[0].tree;
  const FunctionId x = b.function("x");
  auto sel = select_nodes(t, [&](FunctionId f) { return f == x; });
  std::vector<std::string> shown;
  for (NodeId i = 1; i < t.size(); ++i)
    if (sel[i]) shown.push_back(p.functions[t.node(i).function].name);
  EXPECT_EQ(shown, (std::vector<std::string>{"main", "a", "x", "y"}));
  EXPECT_TRUE(sel[kRootNode]);
  auto below = nodes_below_match(t, [&](FunctionId f) { return f == x; });
  EXPECT_FALSE(below[t.find_child(kRootNode, b.function("main"))]);
}

TEST(Modules, SelfTimeRollsUpByModule) {
  FoldedBuilder b;
  Profile p = b.build("main@app;memcpy@libc.so 30\nmain@app;work@app 50\nmain@app;q 5\n");
  auto rows = module_rows(p, function_rows(p.threads[0].tree));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(p.modules[rows[0].module].path, "app");
  EXPECT_EQ(rows[0].self_ns, 50u);
  EXPECT_EQ(rows[0].functions, 2u);
  EXPECT_EQ(p.modules[rows[1].module].path, "libc.so");
  EXPECT_EQ(rows[2].module, kNoModule);
}

}  // namespace
}  // namespace callprof

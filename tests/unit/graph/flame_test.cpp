// The flame layout on folded-stack fixtures, against positions worked out by hand.
#include "graph/flame.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "folded_profile.h"

namespace callprof {
namespace {

using testing::folded;

struct Laid {
  Profile profile;
  FlameLayout layout;
};

Laid lay(const char* stacks, FlameLayoutOptions options = {}) {
  Laid l{folded(stacks), {}};
  const CallTree& tree = l.profile.threads[0].tree;
  const MetricTable cum = cumulative(tree);
  l.layout = flame_layout(tree, cum, options);
  return l;
}

// "name@depth:x+width" per frame, in layout order ("all" for the root, "[N]" for a group).
std::vector<std::string> frames(const Laid& l) {
  std::vector<std::string> out;
  for (const FlameFrame& f : l.layout.frames) {
    const std::string name = f.node == kRootNode ? "all"
                             : f.node == kNoNode ? "[" + std::to_string(f.merged) + "]"
                                                 : l.profile.functions[f.function].name;
    out.push_back(name + "@" + std::to_string(f.depth) + ":" + std::to_string(f.x) + "+" + std::to_string(f.width));
  }
  return out;
}

// main (self 0) calls a (30), b (50, and c: 20 under it) and d (1): totals 101, 30, 70, 20, 1.
constexpr const char* kShape =
    "main;a 30\n"
    "main;b 50\n"
    "main;b;c 20\n"
    "main;d 1\n";

TEST(FlameLayout, PlacesChildrenSideBySideUnderTheirParentDepthFirst) {
  const Laid l = lay(kShape);
  EXPECT_EQ(frames(l), (std::vector<std::string>{"all@0:0+101", "main@1:0+101", "a@2:0+30", "b@2:30+70", "c@3:30+20",
                                                 "d@2:100+1"}));
  EXPECT_EQ(l.layout.total, 101u);
  EXPECT_EQ(l.layout.max_depth, 3u);
  EXPECT_EQ(l.layout.paths, 5u);
  EXPECT_EQ(l.layout.elided_paths, 0u);
  // Parents by index; self is the path's own value.
  const auto& f = l.layout.frames;
  EXPECT_EQ(f[1].parent, 0u);
  EXPECT_EQ(f[2].parent, 1u);
  EXPECT_EQ(f[4].parent, 3u);
  EXPECT_EQ(f[5].parent, 1u);
  EXPECT_EQ(f[1].self, 0u);
  EXPECT_EQ(f[3].self, 50u);
}

TEST(FlameLayout, SiblingsFollowTheGivenRank) {
  // Functions by first appearance: main 0, a 1, b 2, c 3, d 4. Rank d, b, a first.
  const std::vector<uint32_t> rank = {0, 3, 2, 4, 1};
  const Laid l = lay(kShape, {.rank = rank});
  EXPECT_EQ(frames(l),
            (std::vector<std::string>{"all@0:0+101", "main@1:0+101", "d@2:0+1", "b@2:1+70", "c@3:1+20", "a@2:71+30"}));
}

TEST(FlameLayout, DropsANarrowFrameWithItsCallees) {
  // b is 70 wide with c (20) on it; at min_width 25 c goes, and d (1) too.
  const Laid l = lay(kShape, {.min_width = 25});
  EXPECT_EQ(frames(l), (std::vector<std::string>{"all@0:0+101", "main@1:0+101", "a@2:0+30", "b@2:30+70"}));
  EXPECT_EQ(l.layout.elided_paths, 2u);
  EXPECT_EQ(l.layout.max_depth, 2u);
}

constexpr const char* kNarrowSiblings =
    "main;big 10\n"
    "main;x 1\n"
    "main;y 1\n"
    "main;y;deep 1\n"
    "main;z 1\n";

TEST(FlameLayout, MergesNarrowSiblingsIntoOneGroupFrameWhenTheGroupIsWideEnough) {
  // x 1, y 2 (with deep), z 1: each narrower than 3, together 4 wide: one group after big.
  const Laid l = lay(kNarrowSiblings, {.min_width = 3});
  EXPECT_EQ(frames(l), (std::vector<std::string>{"all@0:0+14", "main@1:0+14", "big@2:0+10", "[3]@2:10+4"}));
  const FlameFrame& group = l.layout.frames[3];
  EXPECT_EQ(group.function, kNoFunction);
  EXPECT_EQ(group.parent, 1u);
  EXPECT_EQ(l.layout.paths, 6u);
  EXPECT_EQ(l.layout.elided_paths, 4u);  // x, y, deep, z
}

TEST(FlameLayout, DropsNarrowSiblingsWhenTheGroupIsNarrowToo) {
  const Laid l = lay(kNarrowSiblings, {.min_width = 5});
  EXPECT_EQ(frames(l), (std::vector<std::string>{"all@0:0+14", "main@1:0+14", "big@2:0+10"}));
  EXPECT_EQ(l.layout.elided_paths, 4u);
}

TEST(FlameLayout, WidthIsTheChosenMetricAndPathsWithoutAnyAreLeftOut) {
  const Laid l =
      lay("main;a 30 cpu=5\n"
          "main;b 50\n"
          "main;c 10 cpu=7\n",
          {.metric = Metric::CpuNs});
  EXPECT_EQ(frames(l), (std::vector<std::string>{"all@0:0+12", "main@1:0+12", "a@2:0+5", "c@2:5+7"}));
  EXPECT_EQ(l.layout.paths, 3u);  // main, a, c: b has no CPU time
  EXPECT_EQ(l.layout.elided_paths, 0u);
}

TEST(FlameLayout, SeveralRootsShareTheAllFrame) {
  const Laid l =
      lay("main;a 3\n"
          "worker 5\n");
  EXPECT_EQ(frames(l), (std::vector<std::string>{"all@0:0+8", "main@1:0+3", "a@2:0+3", "worker@1:3+5"}));
}

TEST(FlameLayout, EmptyTreeIsTheRootAlone) {
  CallTree tree;
  const FlameLayout l = flame_layout(tree, cumulative(tree), {});
  ASSERT_EQ(l.frames.size(), 1u);
  EXPECT_EQ(l.frames[0].width, 0u);
  EXPECT_EQ(l.total, 0u);
}

TEST(FlameLayout, DeepRecursionNeedsNoDeepStack) {
  CallTree tree;
  std::vector<FunctionId> path(200000, 0);
  tree.base(tree.path(path))[Metric::WallNs] = 7;
  const FlameLayout l = flame_layout(tree, cumulative(tree), {});
  EXPECT_EQ(l.max_depth, 200000u);
  EXPECT_EQ(l.frames.size(), 200001u);
  EXPECT_EQ(l.frames.back().width, 7u);
  EXPECT_EQ(l.frames.back().self, 7u);
}

}  // namespace
}  // namespace callprof

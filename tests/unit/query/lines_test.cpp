// CodeIndex (query/lines.h): a function's samples by line and instruction, summed over its
// calling contexts and threads; the calls it made by the line they were made from, each
// callee's total counted once where it recurses.
#include "query/lines.h"

#include <gtest/gtest.h>

#include "folded_profile.h"

namespace callprof {
namespace {

using testing::FoldedBuilder;

struct Fixture {
  Profile p;
  FunctionId main_f, a, b;
};

// main calls a from line 5 and b from line 7; a recurses into itself from line 20.
Fixture fixture() {
  Fixture f;
  f.p = FoldedBuilder().build(
      "main 0 calls=1\n"
      "main;a 100 calls=3 samples=4\n"
      "main;a;a 50 calls=2 samples=1\n"
      "main;b 30 calls=1 samples=2\n"
      "@thread 2\n"
      "main;a 10 calls=1 samples=6\n");
  const auto id = [&](const char* n) {
    for (FunctionId i = 0; i < f.p.functions.size(); ++i)
      if (f.p.functions[i].name == n) return i;
    return kNoFunction;
  };
  f.main_f = id("main"), f.a = id("a"), f.b = id("b");
  LocationTable t(f.p);
  const LocationId main5 = t.add(f.main_f, 0x105, "m.c", 5), main7 = t.add(f.main_f, 0x107, "m.c", 7);
  const LocationId a10 = t.add(f.a, 0x210, "a.c", 10), a11 = t.add(f.a, 0x211, "a.c", 11),
                   a20 = t.add(f.a, 0x220, "a.c", 20);
  CallTree& t1 = f.p.threads[0].tree;
  const NodeId n_main = t1.find_child(kRootNode, f.main_f), n_a = t1.find_child(n_main, f.a),
               n_aa = t1.find_child(n_a, f.a), n_b = t1.find_child(n_main, f.b);
  f.p.threads[0].code = CodeCosts{{{n_a, a10, 3, 3000}, {n_a, a11, 1, 1000}, {n_aa, a10, 1, 1000}},
                                  {{n_a, main5}, {n_aa, a20}, {n_b, main7}}};
  CallTree& t2 = f.p.threads[1].tree;
  const NodeId m2 = t2.find_child(kRootNode, f.main_f), a2 = t2.find_child(m2, f.a);
  f.p.threads[1].code = CodeCosts{{{a2, a11, 6, 6000}}, {{a2, main5}}};
  return f;
}

TEST(CodeIndex, SamplesAddUpByLineOverContextsAndThreads) {
  Fixture f = fixture();
  const std::vector<size_t> threads{0, 1};
  const FunctionCode a = CodeIndex(f.p, threads).of(f.a);
  ASSERT_EQ(a.lines.size(), 2u + 1u);  // lines 10, 11, and 20 (a call, no samples)
  EXPECT_EQ(a.lines[0].line, 10u);
  EXPECT_EQ(a.lines[0].samples, 4u);
  EXPECT_EQ(a.lines[1].line, 11u);
  EXPECT_EQ(a.lines[1].samples, 7u);
  EXPECT_EQ(a.lines[1].cpu_ns, 7000u);
  EXPECT_EQ(a.samples, 11u);
  EXPECT_EQ(a.self_samples, 11u);
  EXPECT_EQ(a.calls, 6u);
  ASSERT_EQ(a.instructions.size(), 3u);
  EXPECT_EQ(a.instructions[1].address, 0x211u);
}

TEST(CodeIndex, CallsGoToTheLineTheyWereMadeFrom) {
  Fixture f = fixture();
  const std::vector<size_t> threads{0, 1};
  const CodeIndex index(f.p, threads);
  const FunctionCode m = index.of(f.main_f);
  ASSERT_EQ(m.lines.size(), 2u);
  ASSERT_EQ(m.lines[0].calls.size(), 1u);
  EXPECT_EQ(m.lines[0].calls[0].callee, f.a);
  EXPECT_EQ(m.lines[0].calls[0].calls, 4u);      // 3 + 1 of the outermost a
  EXPECT_EQ(m.lines[0].calls[0].wall_ns, 160u);  // both threads' a subtrees (100 + 50 + 10)
  EXPECT_EQ(m.lines[0].calls[0].samples, 11u);
  EXPECT_EQ(m.lines[1].calls[0].callee, f.b);
  EXPECT_EQ(m.lines[1].calls[0].calls, 1u);
  // a's recursive call from line 20: counted as calls, its time already in the outer a's.
  const FunctionCode a = index.of(f.a);
  EXPECT_EQ(a.lines[2].line, 20u);
  ASSERT_EQ(a.lines[2].calls.size(), 1u);
  EXPECT_EQ(a.lines[2].calls[0].calls, 2u);
  EXPECT_EQ(a.lines[2].calls[0].wall_ns, 0u);
}

// Exact mode's weighed sites: b called 10 times from line 7 and line 8 of main, and from a
// place not known (a tail call): each line gets its own calls and its share of the time.
TEST(CodeIndex, WeighedCallSitesShareTheirNodesCallsAndTime) {
  Fixture f = fixture();
  LocationTable t(f.p);
  const LocationId main7 = t.add(f.main_f, 0x107, "m.c", 7), main8 = t.add(f.main_f, 0x108, "m.c", 8);
  CallTree& tree = f.p.threads[0].tree;
  const NodeId n_b = tree.find_child(tree.find_child(kRootNode, f.main_f), f.b);
  tree.base(n_b)[Metric::Calls] = 10;
  auto& sites = f.p.threads[0].code.call_sites;
  std::erase_if(sites, [&](const CallSite& c) { return c.node == n_b; });
  sites.push_back({n_b, main7, 2, 3});
  sites.push_back({n_b, main8, 6, 24});
  sites.push_back({n_b, kNoLocation, 2, 3});
  const std::vector<size_t> threads{0};
  const FunctionCode m = CodeIndex(f.p, threads).of(f.main_f);
  ASSERT_EQ(m.lines.size(), 3u);  // lines 5, 7, 8
  ASSERT_EQ(m.lines[1].calls.size(), 1u);
  EXPECT_EQ(m.lines[1].calls[0].calls, 2u);
  EXPECT_EQ(m.lines[1].calls[0].wall_ns, 3u);  // b's 30 ns, shared 3 : 24 : 3
  EXPECT_EQ(m.lines[2].calls[0].calls, 6u);
  EXPECT_EQ(m.lines[2].calls[0].wall_ns, 24u);
  ASSERT_EQ(m.unplaced_calls.size(), 1u);  // the tail call's share, listed apart
  EXPECT_EQ(m.unplaced_calls[0].callee, f.b);
  EXPECT_EQ(m.unplaced_calls[0].calls, 2u);
  EXPECT_EQ(m.unplaced_calls[0].wall_ns, 3u);
  // One site per node for pprof's stacks: the heaviest known one.
  EXPECT_EQ(main_call_sites(sites, tree.size())[n_b], main8);
}

TEST(CodeIndex, OnlyTheSelectedThreadsCount) {
  Fixture f = fixture();
  const std::vector<size_t> second{1};
  const FunctionCode a = CodeIndex(f.p, second).of(f.a);
  EXPECT_EQ(a.samples, 6u);
  EXPECT_EQ(CodeIndex(f.p, second).functions(), (std::vector<FunctionId>{f.a, f.main_f}));
}

TEST(CodeIndex, DamagedIdsAreSkipped) {
  Fixture f = fixture();
  f.p.threads[0].code.instructions.push_back({999, 0, 5, 5});
  f.p.threads[0].code.call_sites.push_back({1, 999});
  const std::vector<size_t> threads{0};
  EXPECT_EQ(CodeIndex(f.p, threads).of(f.a).samples, 5u);
}

// The lines of a view: the analysis' trees with --hide and --focus applied.
FunctionCode code_in_view(Fixture f, const char* hide, const char* focus, FunctionId fn) {
  QueryOptions o;
  o.hide = hide;
  o.focus = focus;
  auto a = Analysis::run(std::move(f.p), o);
  EXPECT_TRUE(a.ok());
  return CodeIndex(*a).of(fn);
}

// Hiding a: its samples land on main's line 5, where main called it; b's line is untouched.
TEST(CodeIndex, AHiddenFunctionsCostsGoToTheLineItWasCalledFrom) {
  Fixture f = fixture();
  const FunctionId main_f = f.main_f, a = f.a, b = f.b;
  const FunctionCode m = code_in_view(std::move(f), "^a$", "", main_f);
  ASSERT_EQ(m.lines.size(), 2u);
  EXPECT_EQ(m.lines[0].line, 5u);
  EXPECT_EQ(m.lines[0].samples, 11u);  // a's 5 + 6 located samples, the inner a's included
  EXPECT_TRUE(m.lines[0].calls.empty()) << "a is not shown: no call of it";
  EXPECT_EQ(m.lines[1].line, 7u);
  ASSERT_EQ(m.lines[1].calls.size(), 1u);
  EXPECT_EQ(m.lines[1].calls[0].callee, b);
  EXPECT_EQ(m.self_samples, 11u) << "main's self took a's";
  EXPECT_EQ(m.samples, m.self_samples) << "every self sample is on a line";
  Fixture g = fixture();
  EXPECT_TRUE(code_in_view(std::move(g), "^a$", "", a).lines.empty());
}

// Focusing on a: only its contexts count, and main's calls of it are outside the view; the
// inner a, outermost nowhere, still gives its time to the outer one only.
TEST(CodeIndex, AFocusKeepsTheContextsInsideIt) {
  Fixture f = fixture();
  const FunctionId main_f = f.main_f, a = f.a;
  Fixture g = fixture();
  EXPECT_TRUE(code_in_view(std::move(g), "", "^a$", main_f).lines.empty());
  const FunctionCode in_a = code_in_view(std::move(f), "", "^a$", a);
  EXPECT_EQ(in_a.samples, 11u);
  ASSERT_EQ(in_a.lines.size(), 3u);
  EXPECT_EQ(in_a.lines[2].line, 20u);
  ASSERT_EQ(in_a.lines[2].calls.size(), 1u);
  EXPECT_EQ(in_a.lines[2].calls[0].calls, 2u);
  EXPECT_EQ(in_a.lines[2].calls[0].wall_ns, 0u);
}

// Hide, then focus: a focus on b leaves a out; with main hidden, a focus on a keeps a's lines.
TEST(CodeIndex, HideThenFocusComposes) {
  Fixture f = fixture(), g = fixture();
  const FunctionId a = f.a;
  const FunctionCode outside = code_in_view(std::move(f), "^main$", "^b$", a);
  EXPECT_TRUE(outside.lines.empty());
  EXPECT_EQ(outside.samples, 0u);
  EXPECT_EQ(code_in_view(std::move(g), "^main$", "^a$", a).samples, 11u);
}

}  // namespace
}  // namespace callprof

namespace callprof {
namespace {

TEST(LinesToShow, ContextAroundAnnotatedLinesAndTheFirstLineWithinTheFile) {
  const std::vector<uint32_t> annotated{3, 10};
  EXPECT_EQ(lines_to_show(annotated, 1, 1, 11), (std::vector<uint32_t>{1, 2, 3, 4, 9, 10, 11}));
  EXPECT_EQ(lines_to_show(annotated, 0, 0, 20), (std::vector<uint32_t>{3, 10}));
}

TEST(LinesToShow, AnAnnotatedLinePastTheEndStays) {
  // The file changed since the build: its cost is still listed.
  const std::vector<uint32_t> annotated{40};
  EXPECT_EQ(lines_to_show(annotated, 0, 2, 30), (std::vector<uint32_t>{40}));
}

}  // namespace
}  // namespace callprof

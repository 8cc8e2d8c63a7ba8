// A caller that calls one function from several places: the node's first call site, and
// its further sites with their own calls and times (annotate's calls per line).
#include <gtest/gtest.h>

#include "program.h"

namespace callprof::rt {
namespace {

constexpr uint64_t kLine10 = 0x5010, kLine20 = 0x5020, kLine30 = 0x5030;

// main calls A from line 10 three times (2 ticks each) and from line 20 five times (10 each).
void two_lines(Program& prog, uint64_t& t) {
  prog.call(MAIN, t);
  for (int i = 0; i < 8; ++i) {
    const bool first = i % 2 == 0 && i < 6;
    prog.call_from(A, first ? kLine10 : kLine20, t);
    t += first ? 2 : 10;
    prog.ret(A, t);
  }
  prog.ret(MAIN, ++t);
}

TEST(ThreadProfileSites, CallsFromTwoLinesKeepOneNodeAndTheSecondLinesShare) {
  Program prog;
  uint64_t t = 0;
  two_lines(prog, t);
  const DumpNode* a = prog.at({MAIN, A});
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(prog.p.node_count(), 3u);
  EXPECT_EQ(a->calls, 8u);
  EXPECT_EQ(a->callsite, kLine10);
  const auto sites = prog.sites_of(a);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites.at(kLine20).calls, 5u);
  EXPECT_EQ(sites.at(kLine20).ticks, 50u);
}

TEST(ThreadProfileSites, RecursionFromTwoSitesAddsAtMostASitePerNode) {
  // fib(n) = fib(n - 1) + fib(n - 2): two call sites at every depth, one node per depth.
  Program prog;
  uint64_t t = 0;
  prog.call(MAIN, t);
  struct Fib {
    Program& prog;
    uint64_t& t;
    void operator()(int n, uint64_t site) {
      prog.call_from(F, site, t++);
      if (n > 1) {
        (*this)(n - 1, kLine10);
        (*this)(n - 2, kLine20);
      }
      prog.ret(F, t++);
    }
  } fib{prog, t};
  fib(12, kLine30);
  prog.ret(MAIN, t++);
  EXPECT_EQ(prog.p.node_count(), 2u + 12u);  // root, main, F at depths 1..12
  EXPECT_LE(prog.p.call_site_count(), 12u);
  uint64_t calls = 0, site_calls = 0;
  for (uint32_t i = 1; i < prog.p.node_count(); ++i)
    if (prog.p.nodes()[i].fn == F) calls += prog.p.nodes()[i].calls;
  for (uint32_t i = 0; i < prog.p.call_site_count(); ++i) site_calls += prog.p.call_sites()[i].calls;
  EXPECT_EQ(calls, 465u);  // fib call count for n = 12: 2 * fib(13) - 1
  EXPECT_LT(site_calls, calls);
  EXPECT_GT(site_calls, 0u);
}

TEST(ThreadProfileSites, TwoThousandPlacesCallingOneFunctionAreEachFoundAgain) {
  // 2,000 places calling one function, each twice: the node's list of sites is long.
  Program prog(ProgramOptions{.site_capacity = 4096});
  uint64_t t = 0;
  prog.call(MAIN, t);
  for (int round = 0; round < 2; ++round)
    for (uint64_t site = 0x10000; site < 0x10000 + 2000; ++site) {
      prog.call_from(A, site, t);
      prog.ret(A, ++t);
    }
  prog.ret(MAIN, ++t);
  ASSERT_EQ(prog.p.call_site_count(), 1999u);  // the first place is the node's own
  for (uint32_t i = 0; i < prog.p.call_site_count(); ++i) EXPECT_EQ(prog.p.call_sites()[i].calls, 2u);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 4000u);
}

TEST(ThreadProfileSites, AnInlinedCopysHookSitesAreNotCallSites) {
  Program prog(ProgramOptions{.inlined = true});
  uint64_t t = 0;
  two_lines(prog, t);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 8u);
  EXPECT_EQ(prog.p.call_site_count(), 0u);
}

TEST(ThreadProfileSites, AFoldedFunctionsCallsCountTheirSite) {
  Program prog;
  prog.call(MAIN, 0);
  prog.call_from(A, kLine10, 1);
  prog.ret(A, 2);
  ASSERT_TRUE(prog.p.fold(A));
  for (int i = 0; i < 4; ++i) {
    prog.call_from(A, kLine20, 3);
    prog.ret(A, 3);
  }
  prog.ret(MAIN, 10);
  const DumpNode* a = prog.at({MAIN, A});
  EXPECT_EQ(a->calls, 5u);
  const auto sites = prog.sites_of(a);
  ASSERT_EQ(sites.count(kLine20), 1u);
  EXPECT_EQ(sites.at(kLine20).calls, 4u);
  EXPECT_EQ(sites.at(kLine20).ticks, 0u);
}

TEST(ThreadProfileSites, AFrameOpenAtAttachTakesItsFirstSiteFromTheNextCall) {
  // Frames open at attach may not know where they were called from (call site 0).
  Program prog;
  ASSERT_EQ(prog.open_at_attach({MAIN, A}, 0), 2u);
  prog.ret(A, 5);
  prog.call_from(A, kLine20, 6);
  prog.ret(A, 8);
  EXPECT_EQ(prog.at({MAIN, A})->callsite, kLine20);
  EXPECT_EQ(prog.p.call_site_count(), 0u);
}

TEST(ThreadProfileSites, WithNoRoomLeftFurtherSitesCountAsTheFirstAndAreCounted) {
  Program prog(ProgramOptions{.site_capacity = 2});  // one usable entry
  prog.call(MAIN, 0);
  for (uint64_t site : {kLine10, kLine20, kLine30, kLine30}) {
    prog.call_from(A, site, 1);
    prog.ret(A, 2);
  }
  prog.ret(MAIN, 3);
  EXPECT_EQ(prog.p.call_site_count(), 1u);
  EXPECT_EQ(prog.sites_of(prog.at({MAIN, A})).at(kLine20).calls, 1u);
  EXPECT_EQ(prog.p.call_sites_lost(), 2u);
}

TEST(ThreadProfileSites, PruningDropsThePrunedNodesSitesAndKeepsTheOthers) {
  Program prog(ProgramOptions{.node_capacity = 64, .prunable = true});
  uint64_t t = 0;
  prog.call(MAIN, t);
  prog.call_from(A, kLine10, t);
  t += 1000;
  prog.ret(A, t);
  prog.call_from(A, kLine20, t);
  t += 1000;
  prog.ret(A, t);
  // Many light paths under B, each called from two sites, until the budget forces a prune.
  prog.call(B, t);
  for (uint64_t fn = 0x1000; prog.p.prunes() == 0 && fn < 0x1100; ++fn)
    for (uint64_t site : {kLine10, kLine20}) {
      prog.call_from(fn, site, t);
      prog.ret(fn, ++t);
    }
  prog.ret(B, ++t);
  prog.ret(MAIN, ++t);
  ASSERT_GT(prog.p.prunes(), 0u);
  EXPECT_EQ(prog.sites_of(prog.at({MAIN, A})).at(kLine20).calls, 1u);
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < prog.p.call_site_count(); ++i) {
    const DumpCallSite& s = prog.p.call_sites()[i];
    if (s.node == wire::kDroppedCallSite && ++dropped) continue;
    const uint64_t fn = prog.p.nodes()[s.node].fn;
    EXPECT_NE(fn, 0u);
    EXPECT_NE(fn, wire::kPrunedFn);
  }
  EXPECT_GT(dropped, 0u);
}

TEST(ThreadProfileSites, RestartForgetsTheSitesCountsAndUnloadingMovesTheirAddresses) {
  Program prog;
  uint64_t t = 0;
  two_lines(prog, t);
  prog.p.restart(t);
  const DumpNode* a = prog.at({MAIN, A});
  EXPECT_EQ(prog.sites_of(a).at(kLine20).calls, 0u);
  EXPECT_EQ(prog.sites_of(a).at(kLine20).ticks, 0u);
  prog.p.relocate_functions(0x5000, 0x6000, 0x9000);
  EXPECT_EQ(prog.sites_of(a).count(0x9020), 1u);
  EXPECT_EQ(a->callsite, 0x9010u);
}

}  // namespace
}  // namespace callprof::rt

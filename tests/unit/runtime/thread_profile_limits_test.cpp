// ThreadProfile's user limits and bounded memory: filtered-out functions, depth and
// duration limits, checkpoints, and pruning to the node budget with exact totals.
#include <gtest/gtest.h>

#include "program.h"

namespace callprof::rt {
namespace {

uint64_t g_checkpoint_fn = 0;
int g_checkpoints = 0;

uint32_t classify(uint64_t fn) {
  if (fn == F) return wire::kNodeExcluded;
  if (fn == G) return wire::kNodeCheckpoint;
  return 0;
}
void on_checkpoint(uint64_t fn) {
  g_checkpoint_fn = fn;
  ++g_checkpoints;
}

uint64_t live_self_ticks(const ThreadProfile& p) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < p.node_count(); ++i)
    if (i == 0 || p.nodes()[i].fn != 0) sum += p.nodes()[i].self_ticks;
  return sum;
}

TEST(ThreadLimits, ExcludedFunctionIsTransparentAndItsCallsAreCounted) {
  Program prog;
  prog.p.set_callbacks(classify, nullptr);
  prog.call(MAIN, 0);
  for (uint64_t i = 0; i < 3; ++i) {
    prog.call(F, 10 * i + 1);  // excluded: its time stays with main
    prog.call(A, 10 * i + 2);  // and its callee becomes main's
    prog.ret(A, 10 * i + 5);
    prog.ret(F, 10 * i + 7);
  }
  prog.ret(MAIN, 40);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 3u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 9u);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 31u);
  const DumpNode* f = prog.at({MAIN, F});
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->flags & wire::kNodeExcluded);
  EXPECT_EQ(f->calls, 3u);
  EXPECT_EQ(f->self_ticks, 0u);
  EXPECT_EQ(prog.p.unmatched_exits(), 0u);
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(ThreadLimits, CallsBelowTheMaximumDepthAreNotRecorded) {
  Program prog;
  prog.p.set_limits(ThreadLimits{2, 0});
  prog.call(MAIN, 0);
  prog.call(A, 1);
  prog.call(B, 2);  // depth 3
  prog.call(C, 3);
  prog.ret(C, 4);
  prog.ret(B, 5);
  prog.ret(A, 7);
  prog.ret(MAIN, 8);
  EXPECT_EQ(prog.at({MAIN, A, B}), nullptr);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 6u) << "b and c's time stays with a";
  EXPECT_EQ(prog.p.depth_limited_calls(), 2u);
  EXPECT_EQ(prog.p.dropped_calls(), 0u);
}

TEST(ThreadLimits, CallsShorterThanTheMinimumAreNotRecorded) {
  Program prog;
  prog.p.set_limits(ThreadLimits{UINT32_MAX, 10});
  prog.call(MAIN, 0);
  prog.call(A, 1);
  prog.ret(A, 5);  // 4 ticks: too short
  prog.call(A, 10);
  prog.call(B, 11);
  prog.ret(B, 12);  // too short, inside a long call
  prog.ret(A, 30);  // 20 ticks
  prog.ret(MAIN, 40);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 20u);
  EXPECT_EQ(prog.at({MAIN, A, B})->calls, 0u);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 20u);
  EXPECT_EQ(prog.p.short_calls(), 2u);
}

TEST(ThreadLimits, CheckpointRunsWhenItsFunctionReturns) {
  Program prog;
  g_checkpoints = 0;
  prog.p.set_callbacks(classify, on_checkpoint);
  prog.call(MAIN, 0);
  for (uint64_t i = 0; i < 3; ++i) {
    prog.call(G, 2 * i + 1);
    EXPECT_EQ(g_checkpoints, int(i));
    prog.ret(G, 2 * i + 2);
  }
  prog.ret(MAIN, 10);
  EXPECT_EQ(g_checkpoints, 3);
  EXPECT_EQ(g_checkpoint_fn, uint64_t(G));
}

// main calls k distinct leaves once each (k paths), with leaf i lasting i ticks, plus one
// heavy path main->a->b that lasts 1000 ticks per call.
void many_paths(Program& prog, uint64_t k, uint64_t& now) {
  for (uint64_t i = 1; i <= k; ++i) {
    prog.call(0x10000 + i, now);
    now += i;
    prog.ret(0x10000 + i, now);
    if (i % 50 == 0) {
      prog.call(A, now);
      prog.call(B, now);
      now += 1000;
      prog.ret(B, now);
      prog.ret(A, now);
    }
  }
}

TEST(ThreadPruning, TotalsStayExactAndHeavyPathsKeepTheirCounts) {
  Program prog(ProgramOptions{256, 64, true, true});
  uint64_t now = 0;
  prog.call(MAIN, now);
  many_paths(prog, 2000, now);
  const uint64_t end = now + 1;
  prog.ret(MAIN, end);
  const ThreadProfile& p = prog.p;
  EXPECT_GT(p.prunes(), 0u);
  EXPECT_LT(p.prunes(), 40u) << "each prune must free a good part of the budget";
  EXPECT_LE(p.live_nodes(), 256u);
  EXPECT_EQ(live_self_ticks(p), end) << "every tick is somewhere";
  EXPECT_EQ(prog.at({MAIN})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 40u);
  EXPECT_EQ(prog.at({MAIN, A, B})->calls, 40u);
  EXPECT_EQ(prog.at({MAIN, A, B})->self_ticks, 40000u);
  const DumpNode* pruned = prog.at({MAIN, wire::kPrunedFn});
  ASSERT_NE(pruned, nullptr);
  // The pruned leaves are the light ones; with the kept leaves they make up 2000 calls.
  uint64_t leaf_calls = pruned->calls;
  for (uint64_t i = 1; i <= 2000; ++i)
    if (const DumpNode* n = prog.at({MAIN, 0x10000 + i})) leaf_calls += n->calls;
  EXPECT_EQ(leaf_calls, 2000u);
  EXPECT_NE(prog.at({MAIN, 0x10000 + 2000}), nullptr) << "the heaviest leaf is kept";
}

TEST(ThreadPruning, OpenFramesAndPinnedNodesSurviveAndMetricsFold) {
  Program prog(ProgramOptions{128, 64, true, true});
  uint64_t now = 0;
  prog.call(MAIN, now);
  prog.call(C, ++now);  // stays open through the pruning, with no completed time
  const DumpNode* c = prog.at({MAIN, C});
  const uint32_t c_id = prog.index_of(c);
  prog.call(D, ++now);
  prog.ret(D, ++now);
  const uint32_t d_id = prog.index_of(prog.at({MAIN, C, D}));
  prog.p.pin(d_id);                       // e.g. a thread was created there
  prog.p.top_metrics()->alloc_calls = 7;  // charged to c
  many_paths(prog, 1000, now);
  prog.ret(C, ++now);
  prog.ret(MAIN, ++now);
  EXPECT_GT(prog.p.prunes(), 0u);
  EXPECT_EQ(prog.index_of(prog.at({MAIN, C})), c_id) << "kept nodes keep their ids";
  EXPECT_EQ(prog.index_of(prog.at({MAIN, C, D})), d_id);
  EXPECT_EQ(prog.p.metrics()[c_id].alloc_calls, 7u);
  EXPECT_EQ(live_self_ticks(prog.p), now);
  // The pruned leaves' metrics went into [pruned], not lost.
  const DumpNode* pruned = prog.at({MAIN, C, wire::kPrunedFn});
  ASSERT_NE(pruned, nullptr);
  EXPECT_GT(pruned->self_ticks, 0u);
}

TEST(ThreadPruning, WithoutScratchMemoryTheBudgetDropsCalls) {
  Program prog(ProgramOptions{64, 64, false, false});
  uint64_t now = 0;
  prog.call(MAIN, now);
  many_paths(prog, 100, now);
  prog.ret(MAIN, ++now);
  EXPECT_EQ(prog.p.prunes(), 0u);
  EXPECT_GT(prog.p.dropped_calls(), 0u);
  EXPECT_EQ(live_self_ticks(prog.p), now);
}

}  // namespace
}  // namespace callprof::rt

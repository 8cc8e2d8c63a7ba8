// Auto-fold driven with a fake clock: a function whose calls stay tiny is folded after
// `check_every` calls (its later calls counted on its node, their time in the caller's
// self), and what must never be folded is not: slow functions, recursion, wrappers of
// real work, and everything when auto-fold is off.
#include <gtest/gtest.h>

#include "program.h"

namespace callprof::rt {
namespace {

// Function ids in distinct slots of the folded-function table (it is indexed by address / 16).
enum : uint64_t { OUTER = 0x5010, HELPER = 0x5020 };

// Threshold 5 ticks of average self time, checked every 4 calls; the calls are inlined
// copies (their hooks run from the caller's code) unless `o` says otherwise.
Program folding(ProgramOptions o = {.inlined = true}) {
  Program prog(o);
  prog.p.set_auto_fold(AutoFold{5, 4});
  return prog;
}

// `n` calls of fn from the current top, each `each` ticks long, from time t.
void calls(Program& prog, uint64_t fn, int n, uint64_t each, uint64_t& t) {
  for (int i = 0; i < n; ++i) {
    prog.call(fn, t);
    t += each;
    prog.ret(fn, t);
  }
}

// `n` calls of `wrapper` from the current top, each `own` ticks of its own around `per_call`
// calls of `callee` of `each` ticks.
void wrapped_calls(Program& prog, uint64_t wrapper, uint64_t callee, int n, int per_call, uint64_t each, uint64_t own,
                   uint64_t& t) {
  for (int i = 0; i < n; ++i) {
    prog.call(wrapper, t);
    calls(prog, callee, per_call, each, t);
    prog.ret(wrapper, t += own);
  }
}

TEST(AutoFold, TinyLeafIsFoldedAndItsLaterCallsCountedWithTimeInTheCaller) {
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 4, 2, t);  // 4 calls of 2 ticks: average 2 < 5, folded at the 4th return
  ASSERT_TRUE(prog.p.folded(A));
  calls(prog, A, 6, 2, t);
  prog.ret(MAIN, t += 1);
  const DumpNode* a = prog.at({MAIN, A});
  EXPECT_EQ(a->calls, 10u) << "every call counted";
  EXPECT_EQ(a->self_ticks, 8u) << "only the calls before the fold have time of their own";
  EXPECT_EQ(a->flags, wire::kNodeExcluded | wire::kNodeAutoFolded);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 12u + 1u) << "the folded calls' time is the caller's";
  ASSERT_EQ(prog.p.folded_node_count(), 1u);
  EXPECT_EQ(prog.p.folded_nodes()[0].node, prog.index_of(a));
  EXPECT_EQ(prog.p.folded_nodes()[0].hooked_calls, 4u);
  EXPECT_EQ(prog.p.depth(), 0u) << "no frame left behind";
}

// Two tiny functions in the same slot of the folded-function table: the second cannot be
// folded here, and the runtime is told (it removes such a function for the whole process).
TEST(AutoFold, ATinyFunctionThatFindsItsSlotTakenIsReported) {
  static uint64_t refused = 0;
  refused = 0;
  Program prog = folding();
  prog.p.set_fold_refused_handler([](uint64_t fn) { refused = fn; });
  constexpr uint64_t kSameSlot = A + 16 * kFoldSlots;
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 4, 2, t);
  ASSERT_TRUE(prog.p.folded(A));
  EXPECT_EQ(refused, 0u);
  calls(prog, kSameSlot, 4, 2, t);
  EXPECT_FALSE(prog.p.folded(kSameSlot));
  EXPECT_EQ(refused, kSameSlot);
  EXPECT_EQ(prog.p.fold_refused(), 1u);
  prog.ret(MAIN, t += 1);
  EXPECT_EQ(prog.at({MAIN, kSameSlot})->calls, 4u) << "its calls so far stay counted";
}

// Another thread removed A (its hook calls rewritten away) while this one was inside it: A's
// exit never comes. The next new call lands under A's caller, and A's frame is closed.
TEST(AutoFold, AFrameWhoseFunctionWasRemovedWhileOpenIsClosedByTheNextNewCall) {
  static bool a_gone = false;
  a_gone = false;
  Program prog = folding();
  prog.p.set_gone_check([](uint64_t fn) { return a_gone && fn == A; });
  uint64_t t = 0;
  prog.call(MAIN, t);
  prog.call(A, t += 1);
  a_gone = true;
  prog.abandon(1);  // A returns without its exit hook
  prog.call(B, t += 2);
  prog.ret(B, t += 3);
  prog.ret(MAIN, t += 1);
  EXPECT_EQ(prog.p.gone_frames(), 1u);
  ASSERT_NE(prog.at({MAIN, B}), nullptr) << "B is MAIN's callee";
  EXPECT_EQ(prog.at({MAIN, B})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, A, B}), nullptr);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 2u) << "closed when B was called";
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(AutoFold, NewPathsOfAFoldedFunctionAreFoldedFromTheirFirstCall) {
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 4, 1, t);
  prog.call(B, t);
  calls(prog, A, 3, 1, t);
  prog.ret(B, t += 2);
  prog.ret(MAIN, t);
  const DumpNode* ba = prog.at({MAIN, B, A});
  ASSERT_NE(ba, nullptr);
  EXPECT_EQ(ba->calls, 3u);
  EXPECT_EQ(ba->self_ticks, 0u);
  EXPECT_TRUE(ba->flags & wire::kNodeAutoFolded);
  EXPECT_EQ(prog.p.folded_node_count(), 1u) << "no entry: all its calls were folded";
  EXPECT_EQ(prog.at({MAIN, B})->self_ticks, 5u);
}

TEST(AutoFold, FunctionsAboveTheThresholdStayHooked) {
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 64, 6, t);
  prog.ret(MAIN, t);
  EXPECT_FALSE(prog.p.folded(A));
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 64u * 6u);
}

// A real program's hooks cost more in some stretches than in others (cache misses,
// interrupts): a leaf whose first calls ran slow keeps an average above the threshold long
// after its calls became tiny (zstd by GCC: its hash functions folded in some runs only).
// Near the threshold (its average under 3 times it), a stretch of calls tiny on its own folds it.
TEST(AutoFold, ALeafSlowAtFirstFoldsOnceAStretchOfItsCallsIsTiny) {
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 4, 12, t);  // average 12: above 5, under 15; its stretches are looked at from here
  EXPECT_FALSE(prog.p.folded(A));
  calls(prog, A, 4, 2, t);  // the average is 7, the last 4 calls' 2
  ASSERT_TRUE(prog.p.folded(A)) << "the stretch since the last check was tiny";
  calls(prog, A, 4, 2, t);
  prog.ret(MAIN, t);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 12u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 4u * 12u + 4u * 2u);
}

// Far above the threshold, a stretch of tiny calls does not fold a function: its average
// must first come within 3 times the threshold.
TEST(AutoFold, ALeafFarAboveTheThresholdIsNotFoldedByOneTinyStretch) {
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 4, 40, t);  // average 40: 8 times the threshold
  calls(prog, A, 4, 1, t);   // average 20.5: still above 15
  EXPECT_FALSE(prog.p.folded(A));
  calls(prog, A, 4, 1, t);  // average 14: its stretches are looked at from here
  EXPECT_FALSE(prog.p.folded(A));
  calls(prog, A, 4, 1, t);
  EXPECT_TRUE(prog.p.folded(A));
  prog.ret(MAIN, t);
}

// A stretch is a node's: calls of the same function on another path do not make one.
TEST(AutoFold, AStretchIsOnePathsCalls) {
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 4, 12, t);
  prog.call(B, t);
  calls(prog, A, 4, 12, t);  // MAIN > B > A: its own first check, average 12
  prog.ret(B, t += 1);
  calls(prog, A, 4, 6, t);  // MAIN > A's stretch: 6, not tiny
  EXPECT_FALSE(prog.p.folded(A));
  prog.ret(MAIN, t);
}

TEST(AutoFold, TinyFunctionsReallyCalledStayHooked) {
  // Not inlined in the program: the plain build calls it too, and a sampling profile shows
  // its time as its own.
  Program prog = folding(ProgramOptions{});
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 64, 1, t);
  prog.ret(MAIN, t);
  EXPECT_FALSE(prog.p.folded(A));
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 64u);
}

TEST(AutoFold, RecursiveFunctionsAreNeverFolded) {
  // The deepest level of a recursion is a tiny leaf, but its outer calls are still open.
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  prog.call(F, t);
  calls(prog, F, 16, 1, t);
  prog.ret(F, t += 1);
  prog.ret(MAIN, t);
  EXPECT_FALSE(prog.p.folded(F));
  EXPECT_EQ(prog.at({MAIN, F, F})->calls, 16u);
  EXPECT_EQ(prog.at({MAIN, F})->calls, 1u);
}

TEST(AutoFold, WrappersOfRealWorkKeepTheirPlaceButHelpersOfHelpersFold) {
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  wrapped_calls(prog, A, B, 8, 1, 100, 1, t);  // A: 1 tick of its own around B, which works 100
  EXPECT_FALSE(prog.p.folded(A));
  wrapped_calls(prog, OUTER, HELPER, 8, 1, 1, 1, t);  // 1 tick around the tiny HELPER, folded first
  prog.ret(MAIN, t);
  EXPECT_TRUE(prog.p.folded(HELPER));
  EXPECT_TRUE(prog.p.folded(OUTER)) << "its only callee is folded: it is as tiny as a leaf";
  EXPECT_EQ(prog.at({MAIN, OUTER})->calls, 8u);
  EXPECT_EQ(prog.at({MAIN, OUTER, HELPER})->calls, 4u) << "HELPER's calls made inside OUTER before OUTER was folded";
  EXPECT_EQ(prog.at({MAIN, HELPER})->calls, 4u) << "and the later ones, in OUTER's caller (OUTER is no frame now)";
}

// record --auto-fold wrappers: a function whose own time is tiny folds whatever its callees
// take, and from then on the calls it makes land under its caller, counted and timed there.
TEST(AutoFold, WithWrappersAThinWrapperOfRealWorkFoldsAndLeavesItsCalleesToItsCaller) {
  Program prog = folding();
  prog.p.set_auto_fold(AutoFold{5, 4, true, false});
  uint64_t t = 0;
  prog.call(MAIN, t);
  wrapped_calls(prog, A, B, 8, 1, 100, 1, t);  // A: 1 tick of its own around B, which works 100
  prog.ret(MAIN, t += 1);
  EXPECT_TRUE(prog.p.folded(A)) << "1 tick of its own per call";
  EXPECT_FALSE(prog.p.folded(B));
  EXPECT_EQ(prog.at({MAIN, A})->calls, 8u) << "every call counted";
  EXPECT_EQ(prog.at({MAIN, A, B})->calls, 4u) << "B's calls inside A before A folded";
  EXPECT_EQ(prog.at({MAIN, B})->calls, 4u) << "the later ones under A's caller";
  EXPECT_EQ(prog.at({MAIN, B})->self_ticks, 400u) << "B's time stays its own";
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 4u + 1u) << "the folded calls' own ticks are the caller's";
  EXPECT_EQ(prog.p.depth(), 0u);
}

// A wrapper's self time holds the part of its callees' hook costs that lands in the caller
// (`callee_outer_ticks` per callee call): that part is not its own.
TEST(AutoFold, WithWrappersTheCalleesHookCostsInAWrappersSelfAreLeftOut) {
  for (const uint64_t outer : {3u, 1u}) {
    Program prog = folding();
    prog.p.set_auto_fold(AutoFold{5, 4, true, false, outer});
    uint64_t t = 0;
    prog.call(MAIN, t);
    wrapped_calls(prog, A, B, 8, 2, 100, 7, t);  // A: 7 ticks of self per call (over the 5), two calls of B
    prog.ret(MAIN, t += 1);
    EXPECT_EQ(prog.p.folded(A), outer == 3) << "7 - 2 x " << outer << " ticks of its own against the 5";
  }
}

// A wrapper with a call of it open all along (Lua's luaD_precall running the main chunk)
// folds too: the open call keeps its frame, closed at its own return, and the calls made in
// it after the fold land in it.
TEST(AutoFold, WithWrappersAWrapperOpenAllAlongFoldsAndItsOpenCallClosesAtItsReturn) {
  Program prog = folding();
  prog.p.set_auto_fold(AutoFold{5, 4, true, false});
  uint64_t t = 0;
  prog.call(MAIN, t);
  prog.call(F, t);
  wrapped_calls(prog, F, B, 8, 1, 100, 1, t);  // F calls itself, and the inner F calls B
  EXPECT_TRUE(prog.p.folded(F));
  EXPECT_EQ(prog.p.depth(), 2u) << "the outer call's frame is still open";
  prog.ret(F, t += 10);
  EXPECT_EQ(prog.p.depth(), 1u) << "and closes at its return";
  prog.ret(MAIN, t += 1);
  EXPECT_EQ(prog.at({MAIN, F})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, F, F, B})->calls, 4u) << "before the fold";
  EXPECT_EQ(prog.at({MAIN, F, B})->calls, 4u) << "after: in the open call of F";
  EXPECT_EQ(prog.at({MAIN, F})->self_ticks, 4u + 10u) << "the folded calls' own ticks, and its own";
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 1u);
}

// Lua's interpreter loop: a call of it stays open all run, and on one path (a comparison
// callback) it calls nothing hooked and is tiny, while its other calls work. Over all its
// nodes it is not thin: it stays.
TEST(AutoFold, WithWrappersAFunctionTinyOnOnePathButNotOverAllItsNodesStays) {
  Program prog = folding();
  prog.p.set_auto_fold(AutoFold{5, 4, true, false, 3});
  uint64_t t = 0;
  prog.call(MAIN, t);
  wrapped_calls(prog, A, B, 4, 1, 10, 500, t);  // A working 500 ticks around a call of B
  prog.call(A, t);                              // open from here on
  wrapped_calls(prog, C, A, 8, 1, 1, 1, t);     // A as a tiny leaf under C
  prog.ret(A, t += 1);
  prog.ret(MAIN, t += 1);
  EXPECT_FALSE(prog.p.folded(A));
  EXPECT_TRUE(prog.p.folded(C)) << "C is a thin wrapper of A";
  EXPECT_EQ(prog.at({MAIN, A, C, A})->calls, 4u) << "before C folded";
  EXPECT_EQ(prog.at({MAIN, A, A})->calls, 4u) << "after: under the open call of A";
}

TEST(AutoFold, OffByDefault) {
  Program prog;
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 4096, 1, t);
  prog.ret(MAIN, t);
  EXPECT_FALSE(prog.p.folded(A));
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 4096u);
  EXPECT_EQ(prog.p.folded_node_count(), 0u);
}

TEST(AutoFold, AfterForkTheFoldedFunctionsStayFoldedAndTheirCallsAreTheChilds) {
  Program prog = folding();
  uint64_t t = 0;
  prog.call(MAIN, t);
  calls(prog, A, 4, 1, t);
  prog.p.restart(t);
  calls(prog, A, 3, 1, t);
  prog.ret(MAIN, t);
  EXPECT_TRUE(prog.p.folded(A));
  EXPECT_EQ(prog.at({MAIN, A})->calls, 3u);
  EXPECT_EQ(prog.p.folded_node_count(), 0u) << "none of the child's calls went through the hooks";
}

TEST(AutoFold, PrunedFoldedNodesLeaveTheirEntries) {
  ProgramOptions o;
  o.node_capacity = 16;
  o.prunable = true;
  o.inlined = true;
  Program prog = folding(o);
  uint64_t t = 0;
  prog.call(MAIN, t);
  prog.call(B, t);
  calls(prog, A, 4, 1, t);  // MAIN>B>A folded, with an entry
  prog.ret(B, t += 1);
  ASSERT_EQ(prog.p.folded_node_count(), 1u);
  for (uint64_t fn = 0x1000; fn < 0x1000 + 40; ++fn) calls(prog, fn, 1, 1000, t);  // forces prunes
  prog.ret(MAIN, t);
  ASSERT_GT(prog.p.prunes(), 0u);
  for (uint32_t i = 0; i < prog.p.folded_node_count(); ++i) {
    const DumpNode& n = prog.p.nodes()[prog.p.folded_nodes()[i].node];
    EXPECT_EQ(n.fn, A) << "an entry names a live folded node of A";
    EXPECT_TRUE(n.flags & wire::kNodeAutoFolded);
  }
}

}  // namespace
}  // namespace callprof::rt

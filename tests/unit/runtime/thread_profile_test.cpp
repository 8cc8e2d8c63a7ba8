// ThreadProfile driven with a fake clock and fake stack pointers: the online calling
// context tree, exact per-caller times, recursion, and every way frames close.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "program.h"

namespace callprof::rt {
namespace {

TEST(ThreadProfile, PerCallerTimesAreMeasuredNotApportioned) {
  // The gprof counter-example: B's calls of D take 3 ticks, C's take 1.
  Program prog;
  uint64_t t = 0;
  prog.call(A, t);
  prog.call(B, t);
  for (int i = 0; i < 40; ++i) {
    prog.call(D, t);
    t += 3;
    prog.ret(D, t);
  }
  prog.ret(B, t);
  prog.call(C, t);
  for (int i = 0; i < 40; ++i) {
    prog.call(D, t);
    t += 1;
    prog.ret(D, t);
  }
  prog.ret(C, t);
  prog.ret(A, t);
  EXPECT_EQ(prog.at({A, B, D})->calls, 40u);
  EXPECT_EQ(prog.at({A, B, D})->self_ticks, 120u);
  EXPECT_EQ(prog.at({A, C, D})->self_ticks, 40u);
  EXPECT_EQ(prog.at({A, B})->self_ticks, 0u);
  EXPECT_EQ(prog.at({A, B, D})->min_self_ticks, 3u);
  EXPECT_EQ(prog.at({A, C, D})->max_self_ticks, 1u);
}

TEST(ThreadProfile, SelfExcludesCalleesAndAlternatingChildrenShareNodes) {
  Program prog;
  prog.call(MAIN, 0);
  for (int i = 0; i < 5; ++i) {
    uint64_t base = 10 + i * 10;
    prog.call(A, base);
    prog.ret(A, base + 2);
    prog.call(B, base + 3);
    prog.ret(B, base + 6);
  }
  prog.ret(MAIN, 100);
  EXPECT_EQ(prog.p.node_count(), 4u);  // root, main, a, b: one node per path
  EXPECT_EQ(prog.at({MAIN, A})->calls, 5u);
  EXPECT_EQ(prog.at({MAIN, B})->self_ticks, 15u);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 100u - 10u - 15u);
}

TEST(ThreadProfile, CalleesInTurnAreFoundAndNeverBorrowedFromAnotherCaller) {
  // The lookup remembers which callee followed which; that hint must stay among the
  // children of one caller.
  Program prog;
  uint64_t t = 0;
  prog.call(MAIN, t++);
  for (int round = 0; round < 3; ++round) {
    prog.call(A, t++);
    for (uint64_t callee : {D, C, G}) {  // a's first callee is d, like b's
      prog.call(callee, t++);
      prog.ret(callee, t++);
    }
    prog.ret(A, t++);
    prog.call(B, t++);
    prog.call(D, t++);  // first callee of b: must not reuse a's d
    prog.ret(D, t++);
    prog.ret(B, t++);
  }
  prog.ret(MAIN, t++);
  EXPECT_EQ(prog.p.node_count(), 8u);  // root, main, a, b, a>c, a>d, a>g, b>d
  for (uint64_t callee : {C, D, G}) EXPECT_EQ(prog.at({MAIN, A, callee})->calls, 3u);
  EXPECT_EQ(prog.at({MAIN, B, D})->calls, 3u);
  EXPECT_EQ(prog.at({MAIN, B, D})->parent, uint32_t(prog.at({MAIN, B}) - prog.p.nodes()));
}

TEST(ThreadProfile, IndexStartsSmallDoublesWithTheTreeAndFindsEveryPathAgain) {
  // Spread over the whole reservation, each new path's slot was a fresh page to fault in.
  Program prog(ProgramOptions{.node_capacity = 40000});
  EXPECT_EQ(prog.p.index_slots(), kInitialSlots);
  constexpr uint64_t kCallees = 30000, kFirst = 0x10000;
  uint64_t t = 0;
  prog.call(MAIN, t++);
  for (uint64_t pass = 0; pass < 2; ++pass)
    for (uint64_t i = 0; i < kCallees; ++i) {
      const uint64_t fn = pass == 0 ? kFirst + i : kFirst + kCallees - 1 - i;  // back to front: no hint helps
      prog.call(fn, t++);
      prog.ret(fn, t++);
    }
  prog.ret(MAIN, t++);
  EXPECT_EQ(prog.p.node_count(), 2 + kCallees);  // root, main and one node per callee
  EXPECT_GE(prog.p.index_slots(), 2 * prog.p.node_count());
  EXPECT_LE(prog.p.index_slots(), slot_count_for(40000));
  for (uint64_t i = 0; i < kCallees; i += 997) EXPECT_EQ(prog.at({MAIN, kFirst + i})->calls, 2u) << i;
}

TEST(ThreadProfile, TheSameFunctionsUnderManyCallersAreNeverTakenForOneAnother) {
  // 15,000 paths of 100 functions under 150 callers, through the index (no hint helps): each
  // its own node, found again in other orders.
  Program prog(ProgramOptions{.node_capacity = 40000});
  constexpr uint64_t kCallers = 150, kCallees = 100, kCaller = 0x20000, kCallee = 0x80000;
  uint64_t t = 0;
  prog.call(MAIN, t++);
  for (uint64_t pass = 0; pass < 3; ++pass)
    for (uint64_t i = 0; i < kCallers; ++i) {
      const uint64_t caller = kCaller + 16 * (pass == 1 ? kCallers - 1 - i : i);
      prog.call(caller, t++);
      for (uint64_t j = 0; j < kCallees; ++j) {
        const uint64_t callee = kCallee + 16 * ((j * 37 + pass * 11 + i) % kCallees);  // no hint helps
        prog.call(callee, t++);
        prog.ret(callee, t++);
      }
      prog.ret(caller, t++);
    }
  prog.ret(MAIN, t++);
  EXPECT_EQ(prog.p.node_count(), 2 + kCallers + kCallers * kCallees);
  for (uint64_t i = 0; i < kCallers; i += 7)
    for (uint64_t j = 0; j < kCallees; j += 3) {
      const DumpNode* n = prog.at({MAIN, kCaller + 16 * i, kCallee + 16 * j});
      ASSERT_NE(n, nullptr) << i << " " << j;
      EXPECT_EQ(n->calls, 3u) << i << " " << j;
    }
}

// Whether the index, once `(p, fn)` is placed in it, makes a lookup of `(q, fn)` pass its
// slot with the same 4 bits of hash (linear probing from `(q, fn)`'s position).
bool lookup_meets(std::vector<NodeSlot> slots, uint32_t p, uint32_t q, uint64_t fn) {
  const uint32_t mask = uint32_t(slots.size()) - 1;
  const uint64_t hp = slot_hash(p, fn), hq = slot_hash(q, fn);
  if (slot_tag(hp) != slot_tag(hq)) return false;
  uint32_t at = slot_position(hp) & mask;
  while (slots[at] != 0) at = (at + 1) & mask;
  slots[at] = 1;  // taken
  for (uint32_t i = slot_position(hq) & mask; slots[i] != 0; i = (i + 1) & mask)
    if (i == at) return true;
  return false;
}

TEST(ThreadProfile, PathsOfOneFunctionUnderTwoCallersAreToldApartWhereTheIndexMixesThem) {
  // One function under two callers, where a lookup of the second's path meets the first's
  // slot, with the same 4 bits of hash: only the caller their node holds tells them apart.
  Program prog;
  uint64_t t = 0;
  prog.call(MAIN, t++);  // node 1
  constexpr uint32_t kCallers = 400;
  auto caller_fn = [](uint32_t node) { return 0x20000 + 16 * uint64_t(node - 2); };
  for (uint32_t node = 2; node < kCallers + 2; ++node) {
    prog.call(caller_fn(node), t++);
    prog.ret(caller_fn(node), t++);
  }
  ASSERT_LT(2 * (prog.p.node_count() + 2), prog.p.index_slots()) << "the index stays as it is for two more nodes";
  const std::vector<NodeSlot> slots(prog.p.index(), prog.p.index() + prog.p.index_slots());
  const uint64_t fn = 0x900000;
  uint32_t first = 0, second = 0;
  for (uint32_t p = 2; p < kCallers + 2 && !second; ++p)
    for (uint32_t q = 2; q < kCallers + 2 && !second; ++q)
      if (p != q && lookup_meets(slots, p, q, fn)) first = p, second = q;
  ASSERT_NE(second, 0u) << "no two callers whose paths meet in the index";
  for (const uint32_t caller : {first, second}) {
    prog.call(caller_fn(caller), t++);
    prog.call(fn, t++);
    prog.ret(fn, t++);
    prog.ret(caller_fn(caller), t++);
  }
  prog.ret(MAIN, t++);
  EXPECT_EQ(prog.p.node_count(), kCallers + 4);
  const DumpNode* under_second = prog.at({MAIN, caller_fn(second), fn});
  ASSERT_NE(under_second, nullptr);
  EXPECT_EQ(under_second->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, caller_fn(first), fn})->calls, 1u);
}

// The program's clock in these tests; a pause of the profile's own (its clock read twice)
// takes kPause ticks of it.
uint64_t g_program_time = 0;
constexpr uint64_t kPause = 500;
uint64_t pausing_clock() {
  static bool inside = false;
  inside = !inside;
  if (!inside) g_program_time += kPause;  // the pause ends
  return g_program_time;
}

TEST(ThreadProfile, TheProfilesOwnPausesAreLeftOutOfTheCalls) {
  // Growing the index (at 512 live nodes) and pruning (a budget of 1024 nodes) happen
  // inside the enter hook of a new path: the calls open then, and the one being entered,
  // must not be charged for them.
  Program prog(ProgramOptions{.node_capacity = 1024, .prunable = true});
  prog.p.set_pause_clock(pausing_clock);
  g_program_time = 0;
  prog.call(MAIN, g_program_time++);
  for (uint64_t i = 0; i < 3000; ++i) {
    const uint64_t callee = 0x10000 + i;
    prog.call(callee, g_program_time++);  // the hooks read the clock before the pause
    prog.ret(callee, g_program_time++);
  }
  prog.ret(MAIN, g_program_time);
  const uint64_t pause_ticks = g_program_time - 1 - 2 * 3000;
  EXPECT_GT(prog.p.prunes(), 0u);
  EXPECT_GE(pause_ticks, 2 * kPause) << "at least one growth and one prune";
  const DumpNode* main = prog.at({MAIN});
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->self_ticks, 3001u) << "main's own ticks, no pause";
  for (uint32_t i = 1; i < prog.p.node_count(); ++i) {
    const DumpNode& n = prog.p.nodes()[i];
    if (n.fn >= 0x10000 && n.calls > 0) {
      EXPECT_EQ(n.max_self_ticks, 1u) << std::hex << n.fn;
    }
  }
}

TEST(ThreadProfile, RecursionMakesOneNodePerDepth) {
  Program prog;
  prog.call(F, 0);
  prog.call(F, 1);
  prog.call(G, 2);
  prog.call(F, 3);
  prog.ret(F, 4);
  prog.ret(G, 5);
  prog.ret(F, 6);
  prog.ret(F, 10);
  EXPECT_EQ(prog.at({F})->self_ticks, 5u);     // 0..1 and 6..10
  EXPECT_EQ(prog.at({F, F})->self_ticks, 2u);  // 1..2 and 5..6
  EXPECT_EQ(prog.at({F, F, G, F})->calls, 1u);
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(ThreadProfile, LongjmpClosesDeeperFramesAtTheJump) {
  Program prog;
  prog.call(MAIN, 0);
  prog.call(A, 1);  // calls setjmp
  uint64_t landing = prog.sp();
  prog.call(B, 2);
  prog.call(C, 3);
  prog.call(D, 4);
  EXPECT_TRUE(prog.p.unwind_to_landing(landing, 10));  // longjmp at t=10 back into A
  prog.abandon(3);
  prog.ret(A, 30);  // A keeps running after setjmp returns
  prog.ret(MAIN, 31);
  EXPECT_EQ(prog.at({MAIN, A, B, C, D})->self_ticks, 6u);  // 4..10
  EXPECT_EQ(prog.at({MAIN, A, B})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 1u + 20u);  // 1..2 and 10..30
  EXPECT_EQ(prog.p.unmatched_exits(), 0u);
}

TEST(ThreadProfile, LandingFromAnAlternateSignalStackClosesTheHandlerFrames) {
  Program prog;
  prog.call(MAIN, 0);
  prog.call(A, 1);  // sigsetjmp here
  uint64_t landing = prog.sp();
  prog.call(B, 2);  // the signal arrives in b; its handler runs on a far-away stack
  prog.p.enter(G, 0, 0x10000, 3);
  EXPECT_TRUE(prog.p.unwind_to_landing(landing, 7));  // siglongjmp from the handler
  prog.abandon(1);
  prog.ret(A, 9);
  prog.ret(MAIN, 10);
  EXPECT_EQ(prog.at({MAIN, A, B, G})->self_ticks, 4u);
  EXPECT_EQ(prog.at({MAIN, A, B})->self_ticks, 1u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 3u);  // 1..2 and 7..9
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(ThreadProfile, UnwindToDepthClosesInlinedFramesAtTheLandingStackPointer) {
  // longjmp out of a function inlined into the setjmp caller: same stack pointer, so only
  // the depth recorded at setjmp can tell which frames were left.
  Program prog;
  prog.call(MAIN, 0);
  prog.call(A, 1);  // setjmp here, at depth 2
  prog.p.enter(INLINED, 0, prog.sp(), 2);
  prog.p.unwind_to_depth(2, 6);
  prog.ret(A, 10);
  prog.ret(MAIN, 11);
  EXPECT_EQ(prog.at({MAIN, A, INLINED})->self_ticks, 4u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 1u + 4u);  // 1..2 and 6..10
  EXPECT_EQ(prog.p.unmatched_exits(), 0u);
}

TEST(ThreadProfile, LandingNowhereNearAFrameClosesNothing) {
  Program prog;
  prog.call(MAIN, 0);
  prog.call(A, 1);
  EXPECT_FALSE(prog.p.unwind_to_landing(prog.sp() + (64u << 20), 5));
  EXPECT_EQ(prog.p.depth(), 2u);
}

TEST(ThreadProfile, ExitSafetyNetClosesAbandonedFramesButNotTheCaller) {
  // Clang runs no exit hooks while unwinding: if the catch is not intercepted, the
  // catching function's own exit finds the dead frames above it.
  Program prog;
  prog.call(MAIN, 0);
  prog.call(A, 1);
  prog.call(B, 2);
  prog.call(C, 3);
  prog.abandon(2);
  prog.ret(A, 20);
  prog.ret(MAIN, 21);
  EXPECT_EQ(prog.at({MAIN, A, B, C})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 2u);  // 0..1 and 20..21
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(ThreadProfile, EntrySafetyNetClosesFramesWhoseStackWasReleased) {
  Program prog;
  prog.call(MAIN, 0);
  uint64_t main_sp = prog.sp();
  prog.call(A, 1);
  prog.call(B, 2);
  prog.abandon(2);
  // main now calls C with a smaller frame than B's: C's stack pointer is above B's.
  prog.p.enter(C, 0, main_sp - 32, 5);
  prog.p.exit(C, main_sp - 32, 6);
  prog.ret(MAIN, 7);
  EXPECT_EQ(prog.at({MAIN, C})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, A, B})->self_ticks, 3u);  // closed at C's entry, t=5
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(ThreadProfile, InlinedFunctionsShareTheHostFrameWithoutBeingClosed) {
  // GCC instruments inlined functions: their hooks run with the host's stack pointer.
  Program prog;
  prog.call(MAIN, 0);
  uint64_t sp = prog.sp();
  prog.p.enter(INLINED, 0, sp, 1);
  prog.call(A, 2);  // a real call from the inlined body
  prog.ret(A, 4);
  prog.p.exit(INLINED, sp, 5);
  prog.ret(MAIN, 6);
  EXPECT_EQ(prog.at({MAIN, INLINED, A})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, INLINED})->self_ticks, 2u);
}

TEST(ThreadProfile, HostReturningClosesAnInlinedFrameLeftOpen) {
  Program prog;
  prog.call(MAIN, 0);
  uint64_t sp = prog.sp();
  prog.p.enter(INLINED, 0, sp, 1);  // its exit never runs (an exception left it)
  prog.ret(MAIN, 4);
  EXPECT_EQ(prog.at({MAIN, INLINED})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN})->calls, 1u);
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(ThreadProfile, UnmatchedExitIsIgnored) {
  Program prog;
  prog.call(MAIN, 0);
  prog.p.exit(A, prog.sp() - 64, 1);  // an exit whose entry we never saw, deeper
  prog.ret(MAIN, 2);
  EXPECT_EQ(prog.p.unmatched_exits(), 1u);
  EXPECT_EQ(prog.at({MAIN})->calls, 1u);
}

TEST(ThreadProfile, NodeBudgetDropsCallsAndKeepsTheirTimeInTheCaller) {
  Program prog(/*node_capacity=*/3);  // root, main, a
  prog.call(MAIN, 0);
  prog.call(A, 1);
  prog.ret(A, 2);
  prog.call(B, 3);  // no node left
  prog.call(C, 4);  // nested under a dropped call
  prog.ret(C, 5);
  prog.ret(B, 6);
  prog.ret(MAIN, 10);
  EXPECT_EQ(prog.p.dropped_calls(), 2u);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 9u);  // everything but a's tick
  EXPECT_EQ(prog.p.depth(), 0u);
}

// What the large-page advice was given, per test (the callback is a plain function).
std::vector<std::pair<const void*, uint64_t>> g_advised;

TEST(ThreadProfile, OnlyATreeThatOutgrewTheCachesIsOfferedLargePagesOnce) {
  constexpr uint32_t kCapacity = 2 * kLargeTreeNodes;
  Program prog(ProgramOptions{.node_capacity = kCapacity, .metrics = true});
  g_advised.clear();
  prog.p.set_large_tree_advice([](void* at, uint64_t bytes) { g_advised.emplace_back(at, bytes); });
  prog.call(MAIN, 0);
  uint64_t fn = 0x10000;
  for (; prog.p.node_count() < kLargeTreeNodes - kNodesTouchedAhead; ++fn) {
    prog.call(fn, 1);
    prog.ret(fn, 2);
  }
  EXPECT_TRUE(g_advised.empty()) << "a tree of " << prog.p.node_count() << " nodes";
  for (; prog.p.node_count() < kLargeTreeNodes + 3 * kNodesTouchedAhead; ++fn) {
    prog.call(fn, 1);
    prog.ret(fn, 2);
  }
  prog.ret(MAIN, 3);
  // Nodes, metrics and the whole index reservation, once, whatever the tree does next.
  ASSERT_EQ(g_advised.size(), 3u);
  EXPECT_EQ(g_advised[0].first, prog.p.nodes());
  EXPECT_EQ(g_advised[0].second, uint64_t(kCapacity) * sizeof(DumpNode));
  EXPECT_EQ(g_advised[1].second, uint64_t(kCapacity) * sizeof(DumpNodeMetrics));
  EXPECT_EQ(g_advised[2].second, uint64_t(slot_count_for(kCapacity)) * sizeof(NodeSlot));
  EXPECT_EQ(prog.at({MAIN, fn - 1})->calls, 1u);
}

TEST(ThreadProfile, StackDepthLimitDropsDeeperCalls) {
  Program prog(1024, /*frame_capacity=*/4);  // root + 3 frames
  for (uint64_t i = 0; i < 6; ++i) prog.call(F, i);
  for (uint64_t i = 6; i < 12; ++i) prog.ret(F, i);
  EXPECT_EQ(prog.p.dropped_calls(), 3u);
  EXPECT_EQ(prog.at({F, F, F})->calls, 1u);
  EXPECT_EQ(prog.at({F})->self_ticks, 2u);  // 0..1 and 10..11
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(ThreadProfile, RestartForgetsMetricsAndRestartsOpenFrames) {
  Program prog;
  prog.call(MAIN, 0);
  prog.call(A, 1);
  prog.ret(A, 5);
  prog.call(B, 6);  // fork() happens in b
  prog.p.restart(100);
  prog.ret(B, 103);
  prog.ret(MAIN, 104);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 0u);
  EXPECT_EQ(prog.at({MAIN, B})->self_ticks, 3u);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 1u);
  // The frames open at the fork were the parent's calls: the child counts none of them,
  // and their times since the fork stay out of min/max (issue 14.2).
  EXPECT_EQ(prog.at({MAIN, B})->calls, 0u);
  EXPECT_EQ(prog.at({MAIN})->calls, 0u);
  EXPECT_EQ(prog.at({MAIN, B})->max_self_ticks, 0u);
}

TEST(ThreadProfile, CallsAfterARestartCountAsUsual) {
  Program prog;
  prog.call(MAIN, 0);
  prog.p.restart(10);
  prog.call(A, 11);
  prog.ret(A, 15);
  prog.call(MAIN, 16);  // a recursive call of an inherited function is the child's own
  prog.ret(MAIN, 18);
  prog.ret(MAIN, 20);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, MAIN})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN})->calls, 0u);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 4u);  // 10..11, 15..16, 18..20
}

TEST(ThreadProfile, FramesOpenAtAttachAreContextTheirReturnsCountNoCall) {
  Program prog;
  EXPECT_EQ(prog.open_at_attach({MAIN, A}, 100), 2u);
  prog.call(B, 102);  // the first call recorded hangs under the frames open at the attach
  prog.ret(B, 105);
  prog.ret(A, 110);  // a returns: its frame closes, no call counted
  prog.call(C, 111);
  prog.ret(C, 112);
  prog.ret(MAIN, 120);
  EXPECT_EQ(prog.at({MAIN, A, B})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, C})->calls, 1u);
  EXPECT_EQ(prog.at({MAIN, A})->calls, 0u);
  EXPECT_EQ(prog.at({MAIN})->calls, 0u);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 10u - 3u);  // from the attach (100) on, less b's 3
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 20u - 10u - 1u);
  EXPECT_EQ(prog.p.unmatched_exits(), 0u);
  EXPECT_EQ(prog.p.depth(), 0u);
}

TEST(ThreadProfile, FramesOpenAtAttachGoOnlyOntoAnEmptyStack) {
  Program prog;
  prog.call(MAIN, 0);
  EXPECT_EQ(prog.open_at_attach({A}, 10), 0u);  // this thread's own calls already stand for its path
  EXPECT_EQ(prog.p.depth(), 1u);
}

TEST(ThreadProfile, UnwindAllClosesEverythingAtOnce) {
  Program prog;
  prog.call(MAIN, 0);
  prog.call(A, 1);
  prog.p.unwind_all(9);
  EXPECT_EQ(prog.at({MAIN, A})->self_ticks, 8u);
  EXPECT_EQ(prog.at({MAIN})->self_ticks, 1u);
  EXPECT_EQ(prog.p.depth(), 0u);
}

}  // namespace
}  // namespace callprof::rt

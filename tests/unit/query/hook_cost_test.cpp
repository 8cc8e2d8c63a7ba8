// What the hooks cost a recording and what `record --auto-fold all` would have folded: a
// tiny function folds when it calls nothing hooked but other functions that fold (a leaf of
// folded functions), never when it calls itself or something that stays hooked; the cost is
// the hooked calls times the process's measured cost per call.
#include "query/hook_cost.h"

#include <gtest/gtest.h>

#include "hooked_profile.h"
#include "model/hook_time.h"

namespace callprof {
namespace {

// Raw times (ns of self), 20 ns of hooks per call, a fold threshold of 40 ns per call.
constexpr const char* kProfile =
    "main 1000000 calls=1\n"
    "main;loop 5000000 calls=1000\n"           // 5 us a call
    "main;loop;leaf 20000 calls=1000\n"        // 20 ns: a tiny leaf
    "main;loop;mid 30000 calls=1000\n"         // 30 ns, calling only a tiny leaf: folds after it
    "main;loop;mid;leaf2 10000 calls=1000\n"   // 10 ns: a tiny leaf
    "main;loop;gate 10000 calls=1000\n"        // 10 ns, but calls slow, which stays hooked
    "main;loop;gate;slow 900000 calls=1000\n"  // 900 ns
    "main;loop;again 10000 calls=500\n"        // tiny, but recursive
    "main;loop;again;again 5000 calls=500\n"   //
    "main;loop;edge 40000 calls=1000\n";       // 40 ns: not under the threshold

Profile profile(const std::string& auto_fold, const std::string& text = kProfile) {
  return testing::hooked_profile(text, auto_fold);
}

HookCostEstimate estimate(const std::string& auto_fold, const std::string& focus = "") {
  QueryOptions o;
  o.raw = true;
  o.focus = focus;
  auto a = Analysis::run(profile(auto_fold), o);
  EXPECT_TRUE(a.ok()) << a.error().message;
  return estimate_hook_cost(*a);
}

TEST(HookCost, TheHookedCallsTimesTheirCostPerCall) {
  const HookCostEstimate e = estimate("inlined");
  EXPECT_EQ(e.hooked_calls, 8001u) << "every call: nothing was folded";
  EXPECT_DOUBLE_EQ(e.hook_ns, 8001 * 20.0);
  EXPECT_DOUBLE_EQ(e.recorded_ns, 1000000 + 5000000 + 20000 + 30000 + 10000 + 10000 + 900000 + 10000 + 5000 + 40000)
      << "raw: the threads' time as measured";
  EXPECT_DOUBLE_EQ(e.threshold_ns, 40);
}

TEST(HookCost, AutoFoldAllFoldsTinyLeavesAndTheTinyFunctionsAboveThemAlone) {
  const HookCostEstimate e = estimate("inlined");
  EXPECT_EQ(e.small_leaves, 3u) << "leaf, leaf2, and mid once leaf2 folds; not gate (slow stays), again "
                                   "(recursive) or edge (40 ns)";
  EXPECT_EQ(e.small_leaf_calls, 3000u);
}

TEST(HookCost, AutoFoldWrappersAlsoFoldsThinFunctionsThatCallFewHookedOnes) {
  const HookCostEstimate e = estimate("inlined");
  EXPECT_EQ(e.thin_wrappers, 1u) << "gate (10 ns of its own, calling slow); not again (recursive), loop (5 us) "
                                    "or edge (40 ns)";
  EXPECT_EQ(e.thin_wrapper_calls, 1000u);
}

TEST(HookCost, AWrapperOfMoreThanFourHookedFunctionsIsNoThinWrapper) {
  std::string text = "main 1000000 calls=1\nmain;hub 10000 calls=1000\n";
  for (int i = 0; i < 5; ++i) text += "main;hub;work" + std::to_string(i) + " 900000 calls=1000\n";
  QueryOptions o;
  o.raw = true;
  auto a = Analysis::run(profile("inlined", text), o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(estimate_hook_cost(*a).thin_wrappers, 0u) << "hub calls five functions that stay hooked";
}

TEST(HookCost, NothingMoreToFoldWhenTheRecordingFoldedWithAllOrWrappers) {
  for (const char* scope : {"all", "wrappers"}) {
    const HookCostEstimate e = estimate(scope);
    EXPECT_GT(e.hook_ns, 0) << scope;
    EXPECT_EQ(e.small_leaves, 0u) << scope;
    EXPECT_EQ(e.thin_wrappers, 0u) << scope;
  }
}

// The cost is the recording's: a --focus on part of the tree changes neither the calls nor
// the time; what `all` would fold is not said, the tree no longer holding every function.
TEST(HookCost, TheRecordingsCostWhateverTheFocus) {
  const HookCostEstimate whole = estimate("inlined"), focused = estimate("inlined", "^mid$");
  EXPECT_EQ(focused.hooked_calls, whole.hooked_calls);
  EXPECT_DOUBLE_EQ(focused.hook_ns, whole.hook_ns);
  EXPECT_DOUBLE_EQ(focused.recorded_ns, whole.recorded_ns);
  EXPECT_EQ(focused.small_leaves, 0u);
  EXPECT_EQ(focused.thin_wrappers, 0u);
}

// Compensation cannot take a thin function's whole hook cost out of its few nanoseconds: what
// it left stays in the time as measured. Only the selected threads' part of it counts: each
// thread's time comes out as recorded (--raw), whatever the other threads kept.
TEST(HookCost, UnderAThreadSelectionTheTimeAsMeasuredIsThatThreadsAlone) {
  const std::string text =
      "main 1000000 calls=1\n"
      "main;work 5000000 calls=1000\n"  // 5 us a call: room for every hook's cost
      "@thread 2\n"
      "main 1000 calls=1\n"
      "main;thin 100 calls=100\n";  // 1 ns a call: most of its hooks' cost stays
  auto recorded = [&](std::optional<uint32_t> tid, bool raw) {
    QueryOptions o;
    o.tid = tid;
    o.raw = raw;
    auto a = Analysis::run(profile("inlined", text), o);
    EXPECT_TRUE(a.ok()) << a.error().message;
    if (!raw) {
      EXPECT_GT(a->compensation().unremoved_ns, 500) << "thread 2 kept some of its hooks' cost";
    }
    return estimate_hook_cost(*a).recorded_ns;
  };
  // main's own call is made by code without hooks: the 12 ns of it paid in its caller are in
  // the estimate and in no node.
  for (std::optional<uint32_t> tid :
       {std::optional<uint32_t>(), std::optional<uint32_t>(1), std::optional<uint32_t>(2)})
    EXPECT_NEAR(recorded(tid, false), recorded(tid, true), 12 * (tid ? 1 : 2)) << (tid ? *tid : 0);
  EXPECT_DOUBLE_EQ(recorded(1, false) + recorded(2, false), recorded(std::nullopt, false));
}

// What record says when it ends: from the profile as recorded, its trees' own sums.
TEST(HookCost, ARecordedProfileSumsItsTrees) {
  Profile p = profile("inlined");
  const HookTime h = hook_time(p);
  EXPECT_EQ(h.hooked_calls, 8001u);
  EXPECT_DOUBLE_EQ(h.hook_ns, 8001 * 20.0);
  EXPECT_DOUBLE_EQ(h.recorded_ns, 7025000);
  p.processes[0].hook_outer_ns = 1e6;  // an estimate beyond the run is held to it
  EXPECT_DOUBLE_EQ(hook_time(p).hook_ns, 7025000);
}

TEST(HookCost, NoEstimateWithoutTheHooksMeasuredCost) {
  Profile p = testing::folded(kProfile);
  QueryOptions o;
  auto a = Analysis::run(std::move(p), o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(estimate_hook_cost(*a).hook_ns, 0);
  EXPECT_EQ(estimate_hook_cost(*a).hooked_calls, 0u);
}

}  // namespace
}  // namespace callprof

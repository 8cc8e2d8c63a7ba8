// Building the model from raw dumps, with numbers known by construction: ticks to ns,
// frames still open at the dump, paths no call reached, signal-handler grafts, and the
// counts of what the runtime could not record.
#include "collect/runtime/profile_builder.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>

#include "model/transform/compensate.h"

namespace callprof {
namespace {

constexpr uint64_t kMain = 0x1000, kWork = 0x2000, kIdle = 0x3000, kHandler = 0x4000;

wire::DumpNode node(uint32_t parent, uint64_t fn, uint64_t calls, uint64_t self_ticks) {
  return wire::DumpNode{parent, 0, fn, 0, calls, self_ticks, calls ? self_ticks : UINT64_MAX, self_ticks, 0, 0};
}

// Two ticks per ns. main (open at the dump) -> work (3 calls, 600 ticks); main -> idle
// (no calls: a path left from before a fork); a handler interrupted a hook while work was
// on top (interrupt-tree context node names node 2).
RawProcessDump sample() {
  RawProcessDump d;
  d.header.pid = 7;
  d.header.tsc_start = 1000;
  d.header.tsc_end = 201000;
  d.header.mono_start_ns = 500;
  d.header.mono_end_ns = 100500;
  d.argv = {"prog", "arg"};
  RawThread t;
  t.info.tid = 7;
  t.info.start_tsc = 1000;
  t.info.end_tsc = 11000;
  t.info.finished = 1;
  t.info.dropped_calls = 2;
  t.info.unmatched_exits = 3;
  t.nodes = {node(0, 0, 0, 0), node(0, kMain, 0, 0), node(1, kWork, 3, 600), node(1, kIdle, 0, 0)};
  t.open = {wire::DumpOpenFrame{1, 0, 1000, 600}};  // main entered at 1000, work's 600 done
  t.interrupts = {node(0, 0, 0, 0), node(0, wire::kInterruptedContext | 2, 1, 0), node(1, kHandler, 1, 40)};
  d.threads.push_back(t);
  return d;
}

NodeId at(const CallTree& tree, const Profile& p, std::vector<std::string> names) {
  NodeId n = kRootNode;
  for (const auto& name : names) {
    NodeId found = kNoNode;
    for (NodeId c : tree.children(n))
      if (p.functions[tree.node(c).function].name.find(name) != std::string::npos) found = c;
    if (found == kNoNode) return kNoNode;
    n = found;
  }
  return n;
}

TEST(ProfileBuilder, ConvertsClosesGraftsAndCounts) {
  BuildResult r = build_profile({sample()});
  const Profile& p = r.profile;
  ASSERT_EQ(p.threads.size(), 1u);
  const CallTree& tree = p.threads[0].tree;
  EXPECT_EQ(p.processes[0].command, "prog arg");
  EXPECT_EQ(p.threads[0].start_ns, 500);  // mono_start + 0 ticks
  EXPECT_EQ(p.threads[0].end_ns, 5500);   // + 10000 ticks / 2

  NodeId main = at(tree, p, {"0x1000"}), work = at(tree, p, {"0x1000", "0x2000"});
  ASSERT_NE(main, kNoNode);
  ASSERT_NE(work, kNoNode);
  // main was still open: closed at the thread's end, 10000 ticks, 600 of them in work.
  EXPECT_EQ(tree.base(main)[Metric::Calls], 1u);
  EXPECT_EQ(tree.base(main)[Metric::WallNs], 4700u);
  EXPECT_EQ(tree.base(work)[Metric::WallNs], 300u);
  EXPECT_EQ(tree.base(work)[Metric::MaxWallNs], 300u);
  EXPECT_EQ(at(tree, p, {"0x1000", "0x3000"}), kNoNode) << "a path no call reached is left out";
  // The handler's call hangs under the node that was on top when the signal came.
  NodeId handler = at(tree, p, {"0x1000", "0x2000", "0x4000"});
  ASSERT_NE(handler, kNoNode);
  EXPECT_EQ(tree.base(handler)[Metric::WallNs], 20u);

  EXPECT_EQ(p.threads[0].dropped_calls, 2u);
  EXPECT_EQ(r.unmatched_exits, 3u);
  ASSERT_TRUE(p.meta.exact);
  EXPECT_EQ(p.meta.exact->unmatched_exits, 3u);
}

// After a prune the runtime reuses freed slots: a child may sit at a lower index than its
// parent, and a freed slot (fn 0) may lie between. Index order is then no parents-first
// order, and the builder must still hang every node under its own parent.
TEST(ProfileBuilder, AChildBeforeItsParentAfterAPruneKeepsItsPath) {
  RawProcessDump d = sample();
  RawThread& t = d.threads[0];
  // main (4) -> work (3 calls, 600 ticks) at slot 1 -> idle (2 calls, 80 ticks) at slot 3;
  // slot 2 was freed.
  t.nodes = {node(0, 0, 0, 0), node(4, kWork, 3, 600), node(0, 0, 0, 0), node(1, kIdle, 2, 80), node(0, kMain, 0, 0)};
  t.open = {wire::DumpOpenFrame{4, 0, 1000, 680}};
  t.interrupts = {node(0, 0, 0, 0)};
  BuildResult r = build_profile({d});
  const Profile& p = r.profile;
  const CallTree& tree = p.threads[0].tree;
  const NodeId idle = at(tree, p, {"0x1000", "0x2000", "0x3000"});
  ASSERT_NE(idle, kNoNode) << "main -> work -> idle, whatever the slots";
  EXPECT_EQ(tree.base(idle)[Metric::Calls], 2u);
  EXPECT_EQ(tree.base(idle)[Metric::WallNs], 40u);
  EXPECT_EQ(tree.base(at(tree, p, {"0x1000", "0x2000"}))[Metric::Calls], 3u);
  EXPECT_EQ(tree.size(), 4u) << "the root, main, work and idle; the freed slot is no node";
}

TEST(ProfileBuilder, WithoutCalibrationSaysTimesAreTicks) {
  RawProcessDump d = sample();
  d.header.tsc_end = d.header.tsc_start;
  BuildResult r = build_profile({d});
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.back().find("TSC ticks"), std::string::npos);
}

// A patch build whose nops stayed nops says why in one line, by the step that failed; the
// code comes from the dump, so a value no errno has (INT32_MIN from a corrupt file) is
// named as such.
TEST(ProfileBuilder, UnpatchedEntriesSayWhy) {
  auto warning_for = [](int32_t code, uint32_t step) {
    RawProcessDump d = sample();
    d.header.entries_patched = code;
    d.header.patch_step = step;
    BuildResult r = build_profile({d});
    for (const auto& w : r.warnings)
      if (w.find("patchable") != std::string::npos) return w;
    return std::string();
  };
  EXPECT_EQ(warning_for(0, 0), "");
  EXPECT_NE(warning_for(-EBUSY, wire::kPatchStepOtherThreads).find("other threads were already running"),
            std::string::npos);
  EXPECT_NE(
      warning_for(-ENOENT, wire::kPatchStepTaskList).find("count the process's threads in /proc/self/task: No such"),
      std::string::npos);
  EXPECT_NE(warning_for(-EPERM, wire::kPatchStepUnwinder).find("GOT entries"), std::string::npos);
  EXPECT_NE(warning_for(-EACCES, wire::kPatchStepCode).find("refused writable code: Permission denied"),
            std::string::npos);
  EXPECT_NE(warning_for(INT32_MIN, wire::kPatchStepCode).find("code -2147483648"), std::string::npos);
  EXPECT_NE(warning_for(-EACCES, 99).find("refused writable code"), std::string::npos) << "an unknown step";
}

// Auto-fold: a folded node keeps every call; those after the fold are FoldedCalls, and a
// node folded from its first call has no min/max of its own. The hook costs come in
// 1/65536 ticks, for the compiler that built the program (no file here: GCC's set).
TEST(ProfileBuilder, FoldedNodesKeepTheirCallsAndCostsKeepTheirFractions) {
  RawProcessDump d = sample();
  RawThread& t = d.threads[0];
  constexpr uint32_t kFolded = wire::kNodeExcluded | wire::kNodeAutoFolded;
  t.nodes.push_back(node(2, kIdle, 10, 8));  // work -> idle: 4 hooked calls (8 ticks), 6 folded
  t.nodes.back().flags = kFolded;
  t.nodes.push_back(node(1, kIdle, 5, 0));  // main -> idle: folded from its first call
  t.nodes.back().flags = kFolded;
  t.nodes.back().min_self_ticks = UINT64_MAX;
  t.folded = {wire::DumpFoldedNode{4, 0, 4}};
  t.info.folded_node_count = 1;
  d.header.hook_costs[wire::kHooksGcc] = wire::DumpHookCosts{3 * wire::kHookCostScale / 2, 0, 0, 0, 0, 0};
  d.header.auto_fold_ticks = 60;
  BuildResult r = build_profile({d});
  const Profile& p = r.profile;
  const CallTree& tree = p.threads[0].tree;
  const NodeId hooked_first = at(tree, p, {"0x1000", "0x2000", "0x3000"}), always = at(tree, p, {"0x1000", "0x3000"});
  ASSERT_NE(hooked_first, kNoNode);
  ASSERT_NE(always, kNoNode);
  EXPECT_EQ(tree.base(hooked_first)[Metric::Calls], 10u);
  EXPECT_EQ(tree.base(hooked_first)[Metric::FoldedCalls], 6u);
  EXPECT_EQ(tree.base(hooked_first)[Metric::WallNs], 4u);
  EXPECT_EQ(tree.base(always)[Metric::Calls], 5u);
  EXPECT_EQ(tree.base(always)[Metric::FoldedCalls], 5u);
  EXPECT_FALSE(tree.base(always).has_min(Metric::MinWallNs)) << "no call of its own was timed";
  EXPECT_DOUBLE_EQ(p.processes[0].hook_inner_ns, 0.75) << "1.5 ticks at two ticks per ns";
  EXPECT_EQ(p.processes[0].hook_compiler, "gcc");
  EXPECT_DOUBLE_EQ(p.processes[0].auto_fold_ns, 30.0);
}

// Calls through counting stubs: counted per function, on no path, under one
// "[unhooked calls]" node at the root, untimed and left alone by compensation; the
// process says how many entry calls call a stub.
TEST(ProfileBuilder, CallsThroughCountingStubsGoUnderUnhookedCalls) {
  RawProcessDump d = sample();
  d.header.counted_sites = 3;
  d.header.flags |= wire::kDumpCountsUnhookedCalls;
  d.header.hook_costs[wire::kHooksGcc] =
      wire::DumpHookCosts{3 * wire::kHookCostScale / 2, 2 * wire::kHookCostScale, 0, 4 * wire::kHookCostScale, 0, 0};
  d.threads[0].unhooked = {wire::DumpUnhookedCalls{kIdle, 5000}, wire::DumpUnhookedCalls{kWork, 7}};
  BuildResult r = build_profile({d});
  Profile& p = r.profile;
  EXPECT_EQ(p.processes[0].counting_sites, 3u);
  EXPECT_TRUE(p.processes[0].counts_unhooked_calls);
  CallTree& tree = p.threads[0].tree;
  const NodeId unhooked = at(tree, p, {"[unhooked calls]"});
  ASSERT_NE(unhooked, kNoNode);
  EXPECT_EQ(p.functions[tree.node(unhooked).function].kind, FunctionKind::Unhooked);
  EXPECT_EQ(tree.base(unhooked)[Metric::Calls], 0u);
  const NodeId idle = at(tree, p, {"[unhooked calls]", "0x3000"}), work = at(tree, p, {"[unhooked calls]", "0x2000"});
  ASSERT_NE(idle, kNoNode);
  ASSERT_NE(work, kNoNode);
  EXPECT_EQ(tree.base(idle)[Metric::Calls], 5000u);
  EXPECT_EQ(tree.base(idle)[Metric::FoldedCalls], 5000u);
  EXPECT_EQ(tree.base(idle)[Metric::WallNs], 0u);
  EXPECT_EQ(tree.base(work)[Metric::Calls], 7u);
  EXPECT_EQ(tree.base(at(tree, p, {"0x1000", "0x2000"}))[Metric::Calls], 3u) << "the path keeps its own calls";
  const CompensationStats stats = compensate(p);
  EXPECT_EQ(stats.limited, 0u) << "no folded call's cost is taken from [unhooked calls]";
}

// A process whose patched entries were recorded measured the trampolines' cost too: that
// set is the one its times are compensated with, whatever compiler built it.
TEST(ProfileBuilder, PatchedEntriesTakeTheTrampolinesCosts) {
  RawProcessDump d = sample();
  d.header.hook_costs[wire::kHooksGcc] = wire::DumpHookCosts{2 * wire::kHookCostScale, 0, 0, 0, 0, 0};
  d.header.hook_costs[wire::kHooksPatched] = wire::DumpHookCosts{6 * wire::kHookCostScale, 0, 0, 0, 0, 0};
  const Profile p = build_profile({d}).profile;
  EXPECT_EQ(p.processes[0].hook_compiler, "patched");
  EXPECT_DOUBLE_EQ(p.processes[0].hook_inner_ns, 3.0) << "6 ticks at two ticks per ns";
}

}  // namespace
}  // namespace callprof

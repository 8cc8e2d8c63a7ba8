// Overhead compensation with hand-computed numbers: per-call inner cost, outer cost per
// child call ([pruned] included), excluded calls, min/max, CPU recomputation, clamping.
// Designated initializers name only the fields a test is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "model/transform/compensate.h"

#include <gtest/gtest.h>

namespace callprof {
namespace {

struct Fixture {
  Profile p;
  NodeId main = 0, a = 0, b = 0, pruned = 0;
};

void set(CallTree& t, NodeId n, uint64_t calls, uint64_t wall, uint64_t min, uint64_t max) {
  Metrics& m = t.base(n);
  m[Metric::Calls] = calls;
  m[Metric::WallNs] = wall;
  m[Metric::MinWallNs] = min;
  m[Metric::MaxWallNs] = max;
}

// pid 1 (inner 10, outer 5, excluded 2): main -> a -> b, main -> [pruned]; pid 2 has no constants.
Fixture make() {
  Fixture f;
  f.p.functions = {{"main"}, {"a"}, {"b"}, {"[pruned]"}};
  f.p.processes = {Process{.pid = 1, .hook_inner_ns = 10, .hook_outer_ns = 5, .excluded_hook_ns = 2},
                   Process{.pid = 2}};
  Thread t;
  t.tid = t.pid = 1;
  t.offcpu = Thread::OffCpu::Measured;
  CallTree& tree = t.tree;
  f.main = tree.child(kRootNode, 0);
  f.a = tree.child(f.main, 1);
  f.b = tree.child(f.a, 2);
  f.pruned = tree.child(f.main, 3);
  set(tree, f.main, 1, 1000, 1000, 1000);
  tree.base(f.main)[Metric::ExcludedCalls] = 3;
  tree.base(f.main)[Metric::CpuNs] = 1000;
  set(tree, f.a, 4, 400, 50, 150);
  tree.base(f.a)[Metric::OffCpuNs] = 100;
  tree.base(f.a)[Metric::CpuNs] = 300;
  set(tree, f.b, 8, 100, 5, 20);
  tree.base(f.pruned)[Metric::Calls] = 6;
  tree.base(f.pruned)[Metric::WallNs] = 300;
  f.p.threads.push_back(t);
  Thread other = t;  // same tree, pid 2: no constants
  other.tid = other.pid = 2;
  f.p.threads.push_back(other);
  return f;
}

TEST(Compensate, SubtractsInnerOuterAndExcludedCosts) {
  Fixture f = make();
  compensate(f.p);
  const CallTree& t = f.p.threads[0].tree;
  // main: 1000 - 1*10 - (4 + 6 child calls)*5 - 3 excluded*2 = 934
  EXPECT_EQ(t.node(f.main).base[Metric::WallNs], 934u);
  // a: 400 - 4*10 - 8*5 = 320; b: 100 - 8*10 = 20; [pruned]: 300 - 6*10 = 240
  EXPECT_EQ(t.node(f.a).base[Metric::WallNs], 320u);
  EXPECT_EQ(t.node(f.b).base[Metric::WallNs], 20u);
  EXPECT_EQ(t.node(f.pruned).base[Metric::WallNs], 240u);
  EXPECT_TRUE(f.p.meta.compensated);
}

TEST(Compensate, MinMaxLoseInnerCostClampedAtZero) {
  Fixture f = make();
  compensate(f.p);
  const CallTree& t = f.p.threads[0].tree;
  EXPECT_EQ(t.node(f.a).base[Metric::MinWallNs], 40u);
  EXPECT_EQ(t.node(f.a).base[Metric::MaxWallNs], 140u);
  EXPECT_EQ(t.node(f.b).base[Metric::MinWallNs], 0u);  // 5 - 10
  EXPECT_EQ(t.node(f.b).base[Metric::MaxWallNs], 10u);
  EXPECT_FALSE(t.node(f.pruned).base.has_min(Metric::MinWallNs)) << "unset stays unset";
  // main, one call: its single call's self is the compensated self (not 1000 - 10).
  EXPECT_EQ(t.node(f.main).base[Metric::MinWallNs], 934u);
  EXPECT_EQ(t.node(f.main).base[Metric::MaxWallNs], 934u);
}

TEST(Compensate, MinMaxNeverExceedTheCompensatedSelf) {
  CallTree t;
  const NodeId n = t.child(kRootNode, 0);
  t.child(n, 1);
  set(t, n, 2, 100, 40, 60);
  t.base(t.find_child(n, 1))[Metric::Calls] = 10;
  compensate_tree(t, Process{.hook_inner_ns = 1, .hook_outer_ns = 5}, false);
  EXPECT_EQ(t.node(n).base[Metric::WallNs], 48u);  // 100 - 2 - 50
  EXPECT_EQ(t.node(n).base[Metric::MinWallNs], 39u);
  EXPECT_EQ(t.node(n).base[Metric::MaxWallNs], 48u);  // 59 capped
}

TEST(Compensate, CpuIsCompensatedWallMinusOffCpuWhenMeasured) {
  Fixture f = make();
  f.p.threads[1].offcpu = Thread::OffCpu::Off;
  f.p.threads[1].pid = 1;  // now compensated too, but its CPU time was not measured
  compensate(f.p);
  EXPECT_EQ(f.p.threads[0].tree.node(f.main).base[Metric::CpuNs], 934u);
  EXPECT_EQ(f.p.threads[0].tree.node(f.a).base[Metric::CpuNs], 220u);  // 320 - 100 off-CPU
  EXPECT_EQ(f.p.threads[0].tree.node(f.b).base[Metric::CpuNs], 20u);
  EXPECT_EQ(f.p.threads[1].tree.node(f.a).base[Metric::CpuNs], 300u) << "left as is";
  EXPECT_EQ(f.p.threads[1].tree.node(f.a).base[Metric::WallNs], 320u);
}

TEST(Compensate, ProcessesWithoutConstantsAreLeftAlone) {
  Fixture f = make();
  const Fixture before = make();
  compensate(f.p);
  EXPECT_EQ(f.p.threads[1].tree.node(f.main).base, before.p.threads[1].tree.node(f.main).base);
  EXPECT_EQ(f.p.threads[1].tree.node(f.b).base, before.p.threads[1].tree.node(f.b).base);
  Fixture none = make();
  none.p.processes[0] = Process{.pid = 1};
  compensate(none.p);
  EXPECT_FALSE(none.p.meta.compensated);
  EXPECT_EQ(none.p.threads[0].tree.node(f.main).base[Metric::WallNs], 1000u);
  EXPECT_FALSE(has_hook_costs(none.p));
  EXPECT_TRUE(has_hook_costs(f.p));
}

TEST(Compensate, IsAppliedOnlyOnce) {
  Fixture f = make();
  compensate(f.p);
  compensate(f.p);
  EXPECT_EQ(f.p.threads[0].tree.node(f.main).base[Metric::WallNs], 934u);
}

TEST(Compensate, RoundsFractionalCostsAndClampsAtZero) {
  CallTree t;
  const NodeId n = t.child(kRootNode, 0), leaf = t.child(n, 1);
  set(t, n, 3, 100, 30, 40);
  set(t, leaf, 1, 5, 5, 5);
  compensate_tree(t, Process{.hook_inner_ns = 0.4, .hook_outer_ns = 6.5}, false);
  EXPECT_EQ(t.node(n).base[Metric::WallNs], 92u);  // 100 - 1.2 - 6.5 = 92.3
  EXPECT_EQ(t.node(leaf).base[Metric::WallNs], 5u);  // 5 - 0.4 = 4.6 -> 5
  compensate_tree(t, Process{.hook_inner_ns = 50}, false);
  EXPECT_EQ(t.node(leaf).base[Metric::WallNs], 0u);
  EXPECT_EQ(t.node(kRootNode).base[Metric::WallNs], 0u);
}

TEST(Compensate, SyscallLeavesPassedNoHooks) {
  // main -> a (4 hooked calls), main -> [syscall] write (3 system calls, attach_syscalls).
  CallTree t;
  const NodeId main = t.child(kRootNode, 0), a = t.child(main, 1), write = t.child(main, 2);
  set(t, main, 1, 1000, 1000, 1000);
  set(t, a, 4, 400, 50, 150);
  set(t, write, 3, 300, 50, 150);
  t.base(write)[Metric::Syscalls] = 3;
  t.base(write)[Metric::SyscallNs] = 300;
  t.base(write)[Metric::OffCpuNs] = 200;
  t.base(write)[Metric::CpuNs] = 60;  // less than wall - off: the caller had less CPU to give
  const Metrics leaf = t.node(write).base;
  compensate_tree(t, Process{.hook_inner_ns = 10, .hook_outer_ns = 5}, true);
  EXPECT_EQ(t.node(write).base, leaf) << "no hook ran for a system call";
  // main: 1000 - 1*10 - 4*5 (a's calls; none for the 3 system calls) = 970
  EXPECT_EQ(t.node(main).base[Metric::WallNs], 970u);
  EXPECT_EQ(t.node(a).base[Metric::WallNs], 360u);  // 400 - 4*10
}

}  // namespace
}  // namespace callprof

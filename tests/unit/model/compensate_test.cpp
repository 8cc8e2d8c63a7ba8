// Overhead compensation with hand-computed numbers: per-call inner cost, outer cost per
// child call ([pruned] included), excluded calls, min/max, CPU recomputation, clamping.
// Designated initializers name only the fields a test is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "model/transform/compensate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace callprof {
namespace {

struct Fixture {
  Profile p;
  NodeId main = 0, a = 0, b = 0, pruned = 0;
};

void set(CallTree& t, NodeId n, uint64_t calls, uint64_t wall, uint64_t min, uint64_t max) {
  MetricRowRef m = t.base(n);
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
  EXPECT_EQ(t.base(f.main)[Metric::WallNs], 934u);
  // a: 400 - 4*10 - 8*5 = 320; b: 100 - 8*10 = 20; [pruned]: 300 - 6*10 = 240
  EXPECT_EQ(t.base(f.a)[Metric::WallNs], 320u);
  EXPECT_EQ(t.base(f.b)[Metric::WallNs], 20u);
  EXPECT_EQ(t.base(f.pruned)[Metric::WallNs], 240u);
  EXPECT_TRUE(f.p.meta.compensated);
}

TEST(Compensate, MinMaxLoseInnerCostClampedAtZero) {
  Fixture f = make();
  compensate(f.p);
  const CallTree& t = f.p.threads[0].tree;
  EXPECT_EQ(t.base(f.a)[Metric::MinWallNs], 40u);
  EXPECT_EQ(t.base(f.a)[Metric::MaxWallNs], 140u);
  EXPECT_EQ(t.base(f.b)[Metric::MinWallNs], 0u);  // 5 - 10
  EXPECT_EQ(t.base(f.b)[Metric::MaxWallNs], 10u);
  EXPECT_FALSE(t.base(f.pruned).has_min(Metric::MinWallNs)) << "unset stays unset";
  // main, one call: its single call's self is the compensated self (not 1000 - 10).
  EXPECT_EQ(t.base(f.main)[Metric::MinWallNs], 934u);
  EXPECT_EQ(t.base(f.main)[Metric::MaxWallNs], 934u);
}

TEST(Compensate, MinMaxNeverExceedTheCompensatedSelf) {
  CallTree t;
  const NodeId n = t.child(kRootNode, 0);
  t.child(n, 1);
  set(t, n, 2, 100, 40, 60);
  t.base(t.find_child(n, 1))[Metric::Calls] = 10;
  compensate_tree(t, Process{.hook_inner_ns = 1, .hook_outer_ns = 5}, false);
  EXPECT_EQ(t.base(n)[Metric::WallNs], 48u);  // 100 - 2 - 50
  EXPECT_EQ(t.base(n)[Metric::MinWallNs], 39u);
  EXPECT_EQ(t.base(n)[Metric::MaxWallNs], 48u);  // 59 capped
}

TEST(Compensate, CpuIsCompensatedWallMinusOffCpuWhenMeasured) {
  Fixture f = make();
  f.p.threads[1].offcpu = Thread::OffCpu::Off;
  f.p.threads[1].pid = 1;  // now compensated too, but its CPU time was not measured
  compensate(f.p);
  EXPECT_EQ(f.p.threads[0].tree.base(f.main)[Metric::CpuNs], 934u);
  EXPECT_EQ(f.p.threads[0].tree.base(f.a)[Metric::CpuNs], 220u);  // 320 - 100 off-CPU
  EXPECT_EQ(f.p.threads[0].tree.base(f.b)[Metric::CpuNs], 20u);
  EXPECT_EQ(f.p.threads[1].tree.base(f.a)[Metric::CpuNs], 300u) << "left as is";
  EXPECT_EQ(f.p.threads[1].tree.base(f.a)[Metric::WallNs], 320u);
}

TEST(Compensate, ProcessesWithoutConstantsAreLeftAlone) {
  Fixture f = make();
  const Fixture before = make();
  compensate(f.p);
  EXPECT_EQ(f.p.threads[1].tree.base(f.main), before.p.threads[1].tree.base(f.main));
  EXPECT_EQ(f.p.threads[1].tree.base(f.b), before.p.threads[1].tree.base(f.b));
  Fixture none = make();
  none.p.processes[0] = Process{.pid = 1};
  compensate(none.p);
  EXPECT_FALSE(none.p.meta.compensated);
  EXPECT_EQ(none.p.threads[0].tree.base(f.main)[Metric::WallNs], 1000u);
  EXPECT_FALSE(has_hook_costs(none.p));
  EXPECT_TRUE(has_hook_costs(f.p));
}

TEST(Compensate, IsAppliedOnlyOnce) {
  Fixture f = make();
  compensate(f.p);
  compensate(f.p);
  EXPECT_EQ(f.p.threads[0].tree.base(f.main)[Metric::WallNs], 934u);
}

TEST(Compensate, RoundsFractionalCostsAndClampsAtZero) {
  CallTree t;
  const NodeId n = t.child(kRootNode, 0), leaf = t.child(n, 1);
  set(t, n, 3, 100, 30, 40);
  set(t, leaf, 1, 5, 5, 5);
  compensate_tree(t, Process{.hook_inner_ns = 0.4, .hook_outer_ns = 6.5}, false);
  EXPECT_EQ(t.base(n)[Metric::WallNs], 92u);    // 100 - 1.2 - 6.5 = 92.3
  EXPECT_EQ(t.base(leaf)[Metric::WallNs], 5u);  // 5 - 0.4 = 4.6 -> 5
  compensate_tree(t, Process{.hook_inner_ns = 50}, false);
  EXPECT_EQ(t.base(leaf)[Metric::WallNs], 0u);
  EXPECT_EQ(t.base(kRootNode)[Metric::WallNs], 0u);
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
  const Metrics leaf = t.base(write);
  compensate_tree(t, Process{.hook_inner_ns = 10, .hook_outer_ns = 5}, true);
  EXPECT_EQ(t.base(write), leaf) << "no hook ran for a system call";
  // main: 1000 - 1*10 - 4*5 (a's calls; none for the 3 system calls) = 970
  EXPECT_EQ(t.base(main)[Metric::WallNs], 970u);
  EXPECT_EQ(t.base(a)[Metric::WallNs], 360u);  // 400 - 4*10
}

// The invariant the views rely on (issue 14.13): after compensation every node's CPU,
// off-CPU and waiting-for-a-CPU times add up to its self time, and so every subtree's cum
// values do too; no blocked time is removed, and the wait for a CPU only shrinks. Random trees, with costs from
// negligible to far larger than the nodes' times, so that many nodes are limited.
TEST(Compensate, CpuPlusOffCpuIsSelfAfterCompensationOnRandomTrees) {
  std::mt19937_64 random(20261126);
  for (int round = 0; round < 200; ++round) {
    CallTree t;
    std::vector<NodeId> nodes = {kRootNode};
    const size_t size = 1 + random() % 60;
    for (size_t i = 0; i < size; ++i) {
      const NodeId parent = nodes[random() % nodes.size()];
      const NodeId n = t.child(parent, FunctionId(random() % 8));
      MetricRowRef m = t.base(n);
      m[Metric::Calls] += 1 + random() % 1000;
      const uint64_t wall = random() % 2000000, off = wall == 0 ? 0 : random() % (wall + 1);
      const uint64_t preempted = wall == off ? 0 : random() % (wall - off + 1);
      m[Metric::WallNs] += wall;
      m[Metric::OffCpuNs] += off;
      m[Metric::PreemptedNs] += preempted;
      m[Metric::CpuNs] += wall - off - preempted;
      m[Metric::ExcludedCalls] += random() % 3 == 0 ? random() % 100 : 0;
      if (random() % 10 == 0) m[Metric::Syscalls] = m[Metric::Calls];  // a [syscall] leaf
      nodes.push_back(n);
    }
    const CallTree before = t;
    const double scale = std::pow(10.0, double(random() % 7) - 2);  // 0.01 .. 10,000 ns per hook
    const CompensationStats stats = compensate_tree(
        t, Process{.hook_inner_ns = 7.5 * scale, .hook_outer_ns = 3.25 * scale, .excluded_hook_ns = scale}, true);
    EXPECT_LE(stats.limited, stats.nodes);
    for (NodeId i = 1; i < t.size(); ++i) {
      const Metrics& m = t.base(i);
      ASSERT_EQ(m[Metric::CpuNs] + m[Metric::OffCpuNs] + m[Metric::PreemptedNs], m[Metric::WallNs])
          << "round " << round << " node " << i;
      EXPECT_EQ(m[Metric::OffCpuNs], before.base(i)[Metric::OffCpuNs]) << "blocking is never removed";
      EXPECT_LE(m[Metric::PreemptedNs], before.base(i)[Metric::PreemptedNs]);
      EXPECT_LE(m[Metric::WallNs], before.base(i)[Metric::WallNs]);
    }
    // Cum values: sums of self values over each subtree, so the invariant carries over.
    std::vector<uint64_t> cum_wall(t.size()), cum_cpu(t.size()), cum_off(t.size());
    for (NodeId i = t.size(); i-- > 1;) {
      const Metrics& m = t.base(i);
      cum_wall[i] += m[Metric::WallNs];
      cum_cpu[i] += m[Metric::CpuNs];
      cum_off[i] += m[Metric::OffCpuNs] + m[Metric::PreemptedNs];
      const NodeId p = t.node(i).parent;
      cum_wall[p] += cum_wall[i], cum_cpu[p] += cum_cpu[i], cum_off[p] += cum_off[i];
    }
    for (NodeId i = 1; i < t.size(); ++i) ASSERT_EQ(cum_cpu[i] + cum_off[i], cum_wall[i]);
  }
}

TEST(Compensate, NodesWithLessCpuThanTheCostAreCountedAndKeepTheirWaiting) {
  CallTree t;
  const NodeId n = t.child(kRootNode, 0);
  MetricRowRef m = t.base(n);
  m[Metric::Calls] = 100;
  m[Metric::WallNs] = 1500;  // 1000 of it blocked, 500 on the CPU
  m[Metric::OffCpuNs] = 1000;
  m[Metric::CpuNs] = 500;
  const CompensationStats stats = compensate_tree(t, Process{.hook_inner_ns = 8}, true);  // 800 > 500
  EXPECT_EQ(t.base(n)[Metric::WallNs], 1000u);
  EXPECT_EQ(t.base(n)[Metric::CpuNs], 0u);
  EXPECT_EQ(t.base(n)[Metric::OffCpuNs], 1000u);
  EXPECT_EQ(stats.nodes, 1u);
  EXPECT_EQ(stats.limited, 1u);
  EXPECT_DOUBLE_EQ(stats.unremoved_ns, 300.0);
}

// Issue 29, item 1: on a crowded machine a hook-heavy node's self time is mostly waiting
// for a CPU, and that wait grew with the hooks' run time. Compensation takes it away in
// proportion, so the node is not left with CPU 0 and self time all waiting.
TEST(Compensate, TheWaitForACpuShrinksWithTheOnCpuShare) {
  CallTree t;
  const NodeId n = t.child(kRootNode, 0);
  MetricRowRef m = t.base(n);
  m[Metric::Calls] = 100;
  m[Metric::WallNs] = 3000;  // 1000 on the CPU, 1500 waiting for one, 500 blocked
  m[Metric::CpuNs] = 1000;
  m[Metric::PreemptedNs] = 1500;
  m[Metric::OffCpuNs] = 500;
  const CompensationStats stats = compensate_tree(t, Process{.hook_inner_ns = 6}, true);  // 600 of the 1000
  EXPECT_EQ(t.base(n)[Metric::CpuNs], 400u);
  EXPECT_EQ(t.base(n)[Metric::PreemptedNs], 600u) << "1500 x 400 / 1000";
  EXPECT_EQ(t.base(n)[Metric::OffCpuNs], 500u) << "blocking is the program's";
  EXPECT_EQ(t.base(n)[Metric::WallNs], 1500u);
  EXPECT_EQ(stats.limited, 0u);
  // A node whose hooks' estimated cost exceeds its CPU time keeps only its blocked time.
  m[Metric::WallNs] = 3000, m[Metric::CpuNs] = 1000, m[Metric::PreemptedNs] = 1500, m[Metric::OffCpuNs] = 500;
  compensate_tree(t, Process{.hook_inner_ns = 20}, true);
  EXPECT_EQ(t.base(n)[Metric::CpuNs], 0u);
  EXPECT_EQ(t.base(n)[Metric::PreemptedNs], 0u);
  EXPECT_EQ(t.base(n)[Metric::WallNs], 500u);
}

// The wait left is preempted × cpu' / cpu, none when no CPU time is left: continuous in the
// node's CPU time. Before, a node with no CPU time kept all of its wait while one with 1 ns
// of CPU, all of it taken by the cost, lost all of it.
TEST(Compensate, TheWaitLeftFallsContinuouslyToZeroWithTheCpuTimeLeft) {
  const auto wait_left = [](uint64_t cpu) -> uint64_t {
    CallTree t;
    const NodeId n = t.child(kRootNode, 0);
    MetricRowRef m = t.base(n);
    m[Metric::Calls] = 10;
    m[Metric::CpuNs] = cpu;
    m[Metric::PreemptedNs] = 1000;
    m[Metric::OffCpuNs] = 300;
    m[Metric::WallNs] = cpu + 1300;
    compensate_tree(t, Process{.hook_inner_ns = 10}, true);  // a cost of 100 ns
    EXPECT_EQ(t.base(n)[Metric::OffCpuNs], 300u) << "cpu " << cpu;
    EXPECT_EQ(t.base(n)[Metric::CpuNs] + 300 + t.base(n)[Metric::PreemptedNs], t.base(n)[Metric::WallNs]);
    return t.base(n)[Metric::PreemptedNs];
  };
  EXPECT_EQ(wait_left(0), 0u) << "no CPU time: the estimate says all the running was the hooks'";
  EXPECT_EQ(wait_left(1), 0u);
  EXPECT_EQ(wait_left(100), 0u);
  EXPECT_EQ(wait_left(200), 500u) << "1000 x 100 / 200";
  EXPECT_EQ(wait_left(1100), 909u) << "1000 x 1000 / 1100";
  uint64_t last = 0;
  for (uint64_t cpu = 0; cpu <= 2000; ++cpu) {
    const uint64_t left = wait_left(cpu);
    EXPECT_LE(last, left) << "more CPU time left never leaves less of the wait (cpu " << cpu << ")";
    // The steepest step is at the cost: 1000 / (cost + 1) per ns, about 10 ns.
    EXPECT_LE(left - last, 11u) << "no jump at cpu " << cpu;
    last = left;
  }
}

// Situations (issue 14, item 11): a recursive node pays the recursive cost, a node with
// hooked callees the caller's, a leaf the leaf's; each split 40/60 between callee and caller
// as the leaf's 4/6 is. A folded child's calls cost its caller folded_hook_ns each.
TEST(Compensate, EachNodePaysItsSituationsCost) {
  CallTree t;
  const NodeId main = t.child(kRootNode, 0), f = t.child(main, 1), ff = t.child(f, 1), g = t.child(main, 2),
               h = t.child(main, 3), hg = t.child(h, 2), k = t.child(main, 4);
  set(t, main, 1, 1000, 1000, 1000);
  set(t, f, 2, 500, 200, 300);
  set(t, ff, 4, 100, 20, 30);
  set(t, g, 3, 100, 30, 40);
  set(t, h, 1, 100, 100, 100);
  set(t, hg, 5, 100, 20, 20);
  t.base(k)[Metric::Calls] = 10;
  t.base(k)[Metric::FoldedCalls] = 10;  // every call of k ran unhooked
  const Process c{
      .hook_inner_ns = 4, .hook_outer_ns = 6, .folded_hook_ns = 2, .hook_caller_ns = 20, .hook_recursive_ns = 30};
  const CompensationStats stats = compensate_tree(t, c, false);
  // main (caller: inner 8): 1000 - 8 - (f 2*12 + g 3*6 + h 1*12 + k 10*2) = 918
  EXPECT_EQ(t.base(main)[Metric::WallNs], 918u);
  // f (caller, level 0): 500 - 2*8 - ff 4*18 = 412; ff (recursive: inner 12): 100 - 48 = 52
  EXPECT_EQ(t.base(f)[Metric::WallNs], 412u);
  EXPECT_EQ(t.base(ff)[Metric::WallNs], 52u);
  EXPECT_EQ(t.base(ff)[Metric::MinWallNs], 8u) << "min loses the node's own inner cost";
  // g (leaf): 100 - 3*4 = 88; h (caller): 100 - 8 - 5*6 = 62; h>g (leaf): 100 - 20 = 80
  EXPECT_EQ(t.base(g)[Metric::WallNs], 88u);
  EXPECT_EQ(t.base(h)[Metric::WallNs], 62u);
  EXPECT_EQ(t.base(hg)[Metric::WallNs], 80u);
  EXPECT_EQ(t.base(k)[Metric::WallNs], 0u);
  EXPECT_EQ(stats.limited, 0u);
}

TEST(Compensate, ProfilesWithoutSituationConstantsUseTheLeafsEverywhere) {
  CallTree t;
  const NodeId f = t.child(kRootNode, 1), ff = t.child(f, 1);
  set(t, f, 1, 100, 100, 100);
  set(t, ff, 2, 100, 50, 50);
  compensate_tree(t, Process{.hook_inner_ns = 4, .hook_outer_ns = 6}, false);
  EXPECT_EQ(t.base(f)[Metric::WallNs], 100u - 4u - 2u * 6u);
  EXPECT_EQ(t.base(ff)[Metric::WallNs], 100u - 2u * 4u);
}

}  // namespace
}  // namespace callprof

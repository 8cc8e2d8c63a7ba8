// Overhead compensation over every thread's tree.
#include "model/transform/compensate.h"

#include <algorithm>
#include <cmath>

#include "model/lineage.h"
#include "model/time_split.h"

namespace callprof {
namespace {

// v - cost, rounded to the nearest ns and clamped at 0.
uint64_t minus(uint64_t v, double cost) {
  const double rest = std::round(double(v) - cost);
  return rest <= 0 ? 0 : uint64_t(rest);
}

// Calls that ran through the hooks: a `[syscall]` leaf's calls (attach_syscalls) ran none.
// Nor did the calls of a function folded at run time (auto-fold): they cost folded_hook_ns,
// in the caller.
uint64_t hooked_calls(MetricRow m) {
  const uint64_t not_hooked = m[Metric::Syscalls] + m[Metric::FoldedCalls];
  return m[Metric::Calls] - std::min(m[Metric::Calls], not_hooked);
}

// What one hooked call of a node costs, inside its self time and in its parent's.
struct CallCost {
  double inner = 0, outer = 0;
};

// The whole cost of a call in a situation, split between callee and caller as the leaf's is.
CallCost split(const Process& c, double whole) {
  const double leaf = c.hook_inner_ns + c.hook_outer_ns;
  if (leaf <= 0) return {0, whole};
  const double inner = whole * c.hook_inner_ns / leaf;
  return {inner, whole - inner};
}

// Per node, its situation's cost: recursive (an ancestor is the same function), caller
// (it has hooked callees) or leaf. Constants a profile lacks fall back to the leaf's.
std::vector<CallCost> call_costs(const CallTree& tree, const Process& c, const std::vector<uint64_t>& children) {
  const std::vector<uint32_t> level = recursion_levels(tree);
  const double leaf = c.hook_inner_ns + c.hook_outer_ns;
  const double caller = c.hook_caller_ns > 0 ? c.hook_caller_ns : leaf;
  const double recursive = c.hook_recursive_ns > 0 ? c.hook_recursive_ns : caller;
  const CallCost leaf_cost{c.hook_inner_ns, c.hook_outer_ns}, caller_cost = split(c, caller),
                                                              recursive_cost = split(c, recursive);
  std::vector<CallCost> costs(tree.size());
  for (NodeId i = 1; i < tree.size(); ++i)
    costs[i] = level[i] > 0 ? recursive_cost : children[i] > 0 ? caller_cost : leaf_cost;
  return costs;
}

std::vector<uint64_t> child_calls(const CallTree& tree) {
  std::vector<uint64_t> calls(tree.size(), 0);
  for (NodeId i = 1; i < tree.size(); ++i) calls[tree.node(i).parent] += hooked_calls(tree.base(i));
  return calls;
}

// Per node, the outer cost its children's hooked (and folded) calls left in its self time.
std::vector<double> outer_costs(const CallTree& tree, const Process& c, const std::vector<CallCost>& costs) {
  std::vector<double> outer(tree.size(), 0);
  for (NodeId i = 1; i < tree.size(); ++i)
    outer[tree.node(i).parent] += double(hooked_calls(tree.base(i))) * costs[i].outer +
                                  double(tree.base(i)[Metric::FoldedCalls]) * c.folded_hook_ns;
  return outer;
}

// A runnable thread waits for a CPU in proportion to the time it runs, so the hooks' run
// time brought its share of the waiting: that share goes with it (on a busy machine it
// can be most of a hook-heavy node's self time, which would otherwise be left as if the
// program had waited). The wait left is the wait in the proportion of the on-CPU time left:
// preempted × on_cpu_left / on_cpu, so none when no CPU time is left (also when there was
// none: the estimate says all the running was the hooks'). Continuous in the node's CPU
// time: as it shrinks towards the cost, the wait left goes to 0 with it.
uint64_t waiting_left(const SelfSplit& s, uint64_t on_cpu_left) {
  if (on_cpu_left == 0) return 0;  // on_cpu_left <= s.on_cpu, so s.on_cpu > 0 below
  return uint64_t(std::round(double(s.preempted) * double(on_cpu_left) / double(s.on_cpu)));
}

}  // namespace

bool has_hook_costs(const Process& p) {
  return p.hook_inner_ns > 0 || p.hook_outer_ns > 0 || p.excluded_hook_ns > 0 || p.hook_caller_ns > 0 ||
         p.hook_recursive_ns > 0 || p.folded_hook_ns > 0;
}

bool has_hook_costs(const Profile& profile) {
  return std::any_of(profile.processes.begin(), profile.processes.end(),
                     [](const Process& p) { return has_hook_costs(p); });
}

CompensationStats compensate_tree(CallTree& tree, const Process& c, bool cpu_measured) {
  CompensationStats stats;
  const std::vector<CallCost> costs = call_costs(tree, c, child_calls(tree));
  const std::vector<double> outer = outer_costs(tree, c, costs);
  for (NodeId i = 1; i < tree.size(); ++i) {  // the root is no call: nothing to remove
    MetricRowRef m = tree.base(i);
    const uint64_t hooked = hooked_calls(m);
    // A system-call leaf: no hook ran, and its time is the traced duration, free of hook costs.
    if (hooked == 0 && m[Metric::Syscalls] > 0) continue;
    // No call and no time: nothing to take a cost from, and not one of the nodes whose
    // constants overestimate (`limited`). "[unhooked calls]" is one: its children's calls ran
    // through counting stubs in callers it does not stand for.
    if (m[Metric::Calls] == 0 && m[Metric::WallNs] == 0) continue;
    const double inner = costs[i].inner;
    const double cost = double(hooked) * inner + outer[i] + double(m[Metric::ExcludedCalls]) * c.excluded_hook_ns;
    if (cost <= 0) continue;
    ++stats.nodes;
    const SelfSplit split = split_self_of(m, cpu_measured);
    if (cost > double(split.on_cpu) + 0.5) {
      ++stats.limited;
      stats.unremoved_ns += cost - double(split.on_cpu);
    }
    const uint64_t on_cpu = minus(split.on_cpu, cost);
    const uint64_t preempted = waiting_left(split, on_cpu);
    if (preempted != split.preempted) m[Metric::PreemptedNs] = preempted;
    if (m[Metric::OffCpuNs] != split.blocked) m[Metric::OffCpuNs] = split.blocked;  // was over the wall time
    m[Metric::WallNs] = split.blocked + preempted + on_cpu;
    // One call's self time cannot exceed all calls' (min/max lose only the inner cost, while
    // self also loses the outer cost of the children); a single call is exactly the self.
    const uint64_t self = m[Metric::WallNs];
    const bool one = hooked == 1;
    if (m.has_min(Metric::MinWallNs))
      m[Metric::MinWallNs] = one ? self : std::min(self, minus(m[Metric::MinWallNs], inner));
    m[Metric::MaxWallNs] = one ? self : std::min(self, minus(m[Metric::MaxWallNs], inner));
    if (cpu_measured) m[Metric::CpuNs] = on_cpu;
  }
  return stats;
}

bool compensate_thread(const Profile& profile, size_t process, Thread& thread, CompensationStats& stats) {
  if (profile.meta.compensated || process >= profile.processes.size()) return false;
  const Process& constants = profile.processes[process];
  if (!has_hook_costs(constants)) return false;
  stats.add(compensate_tree(thread.tree, constants, thread.offcpu == Thread::OffCpu::Measured));
  return true;
}

CompensationStats compensate(Profile& profile, std::vector<CompensationStats>* per_thread) {
  CompensationStats stats;
  const std::vector<size_t> process = thread_processes(profile);
  if (per_thread) per_thread->assign(profile.threads.size(), CompensationStats{});
  bool changed = false;
  for (size_t i = 0; i < profile.threads.size(); ++i) {
    CompensationStats own;
    changed |= compensate_thread(profile, process[i], profile.threads[i], own);
    stats.add(own);
    if (per_thread) (*per_thread)[i] = own;
  }
  if (changed) profile.meta.compensated = true;
  return stats;
}

}  // namespace callprof

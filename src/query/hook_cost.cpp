#include "query/hook_cost.h"

#include <algorithm>
#include <unordered_set>

#include "model/hook_time.h"

namespace callprof {
namespace {

// Per function of the tree, the functions still hooked that its nodes call (children with
// calls that are real functions not folded already: itself too, in a recursion).
std::vector<std::vector<FunctionId>> hooked_callees(const Analysis& a, const std::unordered_set<FunctionId>& folded) {
  const CallTree& tree = a.tree();
  std::vector<std::vector<FunctionId>> out(a.profile().functions.size());
  for (NodeId n = 1; n < tree.nodes().size(); ++n) {
    const FunctionId f = tree.nodes()[n].function;
    if (f >= out.size()) continue;
    for (NodeId c = tree.nodes()[n].first_child; c != kNoNode; c = tree.nodes()[c].next_sibling) {
      const FunctionId g = tree.nodes()[c].function;
      if (uint64_t(tree.base(c)[Metric::Calls]) > 0 && a.kind(g) == FunctionKind::Normal && !folded.count(g))
        out[f].push_back(g);
    }
  }
  for (auto& v : out) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  return out;
}

}  // namespace

HookCostEstimate estimate_hook_cost(const Analysis& a) {
  HookCostEstimate e;
  const Profile& p = a.profile();
  uint64_t folded_calls = 0;
  std::unordered_set<FunctionId> folded;
  for (const FoldedFunction& f : a.folded()) {
    folded_calls += f.folded_calls;
    folded.insert(f.function);
  }
  // The selected threads' own trees, whatever --focus and --hide leave of the tree shown:
  // the cost is the recording's.
  std::vector<uint64_t> calls;
  double measured_ns = 0;
  for (const ThreadTotals& t : a.thread_totals()) calls.push_back(t.calls);
  for (size_t t : a.threads()) measured_ns += double(a.thread_totals()[t].total_ns);
  const HookTime h = hook_time(p, a.threads(), calls, folded_calls, 0);
  if (h.hook_ns <= 0) return e;
  e.hooked_calls = h.hooked_calls;
  e.hook_ns = h.hook_ns;
  // Compensation took the hooks out of the times but where a node had less time than their
  // estimate (a thin wrapper's): what it could not take stays in what was measured.
  if (a.compensated()) measured_ns += std::max(0.0, e.hook_ns - a.selected_compensation().unremoved_ns);
  e.recorded_ns = measured_ns;
  // The runtime's threshold is for a call's own time with the hooks' part inside it, which
  // compensation took out of self.
  double inner_ns = 0;
  for (const Process& proc : p.processes) {
    e.threshold_ns = std::max(e.threshold_ns, proc.auto_fold_ns);
    inner_ns = std::max(inner_ns, proc.hook_inner_ns);
  }
  if (!a.compensated()) inner_ns = 0;
  const std::string scope = p.meta.exact ? p.meta.exact->auto_fold : "";
  // The functions are the tree's: with --focus or --hide they are not all the recording's.
  if (e.threshold_ns <= 0 || scope == "all" || scope == "wrappers" || a.transforms_trees()) return e;
  // Tiny by their own time; then, as the runtime folds a leaf of folded functions, those
  // whose every hooked callee folds too, until nothing changes (not themselves: recursion).
  const std::vector<std::vector<FunctionId>> callees = hooked_callees(a, folded);
  std::vector<const FunctionRow*> tiny;
  for (const FunctionRow& r : a.functions())
    if (r.calls > 0 && a.kind(r.function) == FunctionKind::Normal && !folded.count(r.function) &&
        r.function < callees.size() && double(r.self_ns) / double(r.calls) + inner_ns < e.threshold_ns)
      tiny.push_back(&r);
  std::unordered_set<FunctionId> folds;
  for (bool changed = true; changed;) {
    changed = false;
    for (const FunctionRow* r : tiny) {
      if (folds.count(r->function)) continue;
      const auto& c = callees[r->function];
      if (std::all_of(c.begin(), c.end(), [&](FunctionId g) { return g != r->function && folds.count(g); })) {
        folds.insert(r->function);
        ++e.small_leaves;
        e.small_leaf_calls += r->calls;
        changed = true;
      }
    }
  }
  for (const FunctionRow* r : tiny) {
    if (folds.count(r->function)) continue;
    const auto& c = callees[r->function];
    // Not a recursion (fib): whether the runtime would fold one is not this estimate's to say.
    if (std::binary_search(c.begin(), c.end(), r->function)) continue;
    if (std::count_if(c.begin(), c.end(), [&](FunctionId g) { return !folds.count(g); }) <= kWrapperMaxCallees) {
      ++e.thin_wrappers;
      e.thin_wrapper_calls += r->calls;
    }
  }
  return e;
}

}  // namespace callprof

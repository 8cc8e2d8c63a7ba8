// Sums FoldedCalls and Calls by function over the trees.
#include "graph/folded.h"

#include <algorithm>
#include <map>

namespace callprof {

size_t FoldedTally::add(const CallTree& tree) {
  if (!tree.base_table().has(Metric::FoldedCalls)) return 0;  // nothing folded in this thread
  std::map<FunctionId, bool> folded;
  for (NodeId i = 1; i < tree.size(); ++i)
    if (tree.base(i)[Metric::FoldedCalls] > 0) folded[tree.node(i).function] = true;
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    if (!folded.count(n.function)) continue;
    FoldedFunction& f = by_function_[n.function];
    f.function = n.function;
    f.calls += tree.base(i)[Metric::Calls];
    f.folded_calls += tree.base(i)[Metric::FoldedCalls];
  }
  return folded.size();
}

std::vector<FoldedFunction> FoldedTally::sorted() const {
  std::vector<FoldedFunction> out;
  for (const auto& [f, row] : by_function_) out.push_back(row);
  std::stable_sort(out.begin(), out.end(),
                   [](const FoldedFunction& a, const FoldedFunction& b) { return a.folded_calls > b.folded_calls; });
  return out;
}

void add_hook_removals(std::vector<FoldedFunction>& folded, const std::vector<Process>& processes) {
  std::map<FunctionId, int64_t> first;
  std::map<FunctionId, bool> counted, inlined_uncounted;
  for (const Process& p : processes) {
    if (p.rewrite_refused_errno != 0) continue;
    const bool counting = p.counts_unhooked_calls && p.uncounted_sites == 0;
    for (const Process::RemovedHooks& r : p.removed_hooks) {
      if (auto [it, added] = first.emplace(r.function, r.at_ns); !added) it->second = std::min(it->second, r.at_ns);
      if (auto [it, added] = counted.emplace(r.function, counting); !added) it->second = it->second && counting;
      inlined_uncounted[r.function] = inlined_uncounted[r.function] || r.inlined_copies_uncounted;
    }
  }
  for (FoldedFunction& f : folded)
    if (const auto at = first.find(f.function); at != first.end()) {
      f.hooks_removed_at_ns = at->second;
      f.counted_after_removal = counted.at(f.function);
      f.inlined_copies_uncounted = f.counted_after_removal && inlined_uncounted.at(f.function);
    }
}

}  // namespace callprof

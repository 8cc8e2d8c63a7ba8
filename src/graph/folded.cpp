// Sums FoldedCalls and Calls by function over the trees.
#include "graph/folded.h"

#include <algorithm>
#include <map>

namespace callprof {
namespace {

void add(const CallTree& tree, std::map<FunctionId, FoldedFunction>& by_function) {
  if (!tree.base_table().has(Metric::FoldedCalls)) return;  // nothing folded in this thread
  std::map<FunctionId, bool> folded;
  for (NodeId i = 1; i < tree.size(); ++i)
    if (tree.base(i)[Metric::FoldedCalls] > 0) folded[tree.node(i).function] = true;
  if (folded.empty()) return;
  for (NodeId i = 1; i < tree.size(); ++i) {
    const CallNode& n = tree.node(i);
    if (!folded.count(n.function)) continue;
    FoldedFunction& f = by_function[n.function];
    f.function = n.function;
    f.calls += tree.base(i)[Metric::Calls];
    f.folded_calls += tree.base(i)[Metric::FoldedCalls];
  }
}

std::vector<FoldedFunction> sorted(const std::map<FunctionId, FoldedFunction>& by_function) {
  std::vector<FoldedFunction> out;
  for (const auto& [f, row] : by_function) out.push_back(row);
  std::stable_sort(out.begin(), out.end(),
                   [](const FoldedFunction& a, const FoldedFunction& b) { return a.folded_calls > b.folded_calls; });
  return out;
}

}  // namespace

void FoldedTally::add(const CallTree& tree) { callprof::add(tree, by_function_); }

std::vector<FoldedFunction> FoldedTally::sorted() const { return callprof::sorted(by_function_); }

std::vector<FoldedFunction> folded_functions(const Profile& profile) {
  FoldedTally tally;
  for (const Thread& t : profile.threads) tally.add(t.tree);
  return tally.sorted();
}

std::vector<FoldedFunction> folded_functions(const Thread& thread) {
  FoldedTally tally;
  tally.add(thread.tree);
  return tally.sorted();
}

}  // namespace callprof

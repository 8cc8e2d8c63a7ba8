// Thread totals and creation forests. Parent links come from recorded ids, which may be
// missing or inconsistent, so the forest builder never trusts them to be acyclic.
#include "graph/threads.h"

#include <algorithm>

#include "graph/aggregate.h"
#include "model/lineage.h"

namespace callprof {
namespace {

// Pre-order forest from parent indices (npos = root candidate).
std::vector<ForestEntry> forest(const std::vector<size_t>& parent) {
  constexpr size_t npos = SIZE_MAX;
  const size_t n = parent.size();
  std::vector<std::vector<size_t>> children(n);
  for (size_t i = 0; i < n; ++i)
    if (parent[i] != npos) children[parent[i]].push_back(i);
  std::vector<bool> seen(n, false);
  std::vector<ForestEntry> out;
  auto visit_from = [&](size_t root) {
    std::vector<ForestEntry> stack{{root, 0}};
    while (!stack.empty()) {
      ForestEntry e = stack.back();
      stack.pop_back();
      if (seen[e.index]) continue;
      seen[e.index] = true;
      out.push_back(e);
      for (auto c = children[e.index].rbegin(); c != children[e.index].rend(); ++c) stack.push_back({*c, e.depth + 1});
    }
  };
  for (size_t i = 0; i < n; ++i)
    if (parent[i] == npos) visit_from(i);
  // Whatever is left sits on a cycle: start from its first member.
  for (size_t i = 0; i < n; ++i)
    if (!seen[i]) visit_from(i);
  return out;
}

}  // namespace

ThreadTotals thread_totals(const CallTree& tree) {
  ThreadTotals tt;
  const MetricTable& base = tree.base_table();
  tt.calls = base.sum(Metric::Calls);
  tt.total_ns = grand_total_ns(tree);
  tt.cpu_ns = base.sum(Metric::CpuNs);
  tt.offcpu_ns = base.sum(Metric::OffCpuNs);
  tt.preempted_ns = base.sum(Metric::PreemptedNs);
  return tt;
}

std::vector<ForestEntry> thread_forest(const Profile& profile) {
  std::vector<size_t> all(profile.threads.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return thread_forest(profile, all);
}

std::vector<ForestEntry> thread_forest(const Profile& profile, const std::vector<size_t>& threads) {
  const std::vector<size_t> creator = thread_creators(profile);
  std::vector<size_t> local(profile.threads.size(), SIZE_MAX);  // profile index -> position in `threads`
  for (size_t i = 0; i < threads.size(); ++i) local[threads[i]] = i;
  std::vector<size_t> parent(threads.size(), SIZE_MAX);
  for (size_t i = 0; i < threads.size(); ++i)
    if (const size_t c = creator[threads[i]]; c != kNoIndex) parent[i] = local[c];
  std::vector<ForestEntry> out = forest(parent);
  for (ForestEntry& e : out) e.index = threads[e.index];
  return out;
}

std::vector<ForestEntry> process_forest(const Profile& profile) {
  std::vector<size_t> parent = process_parents(profile);
  for (size_t& p : parent)
    if (p == kNoIndex) p = SIZE_MAX;
  return forest(parent);
}

int64_t earliest_thread_start_ns(const Profile& profile) {
  if (profile.threads.empty()) return 0;
  int64_t earliest = profile.threads.front().start_ns;
  for (const Thread& t : profile.threads) earliest = std::min(earliest, t.start_ns);
  return earliest;
}

}  // namespace callprof

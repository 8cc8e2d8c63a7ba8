// Thread totals and creation forests. Parent links come from recorded ids, which may be
// missing or inconsistent, so the forest builder never trusts them to be acyclic.
#include "graph/threads.h"

#include <algorithm>
#include <unordered_map>

#include "graph/aggregate.h"

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

std::vector<ThreadTotals> thread_totals(const Profile& profile) {
  std::vector<ThreadTotals> out;
  for (const Thread& t : profile.threads) {
    ThreadTotals tt;
    for (const CallNode& n : t.tree.nodes()) tt.calls += n.base[Metric::Calls];
    tt.total_ns = grand_total_ns(t.tree);
    out.push_back(tt);
  }
  return out;
}

std::vector<ForestEntry> thread_forest(const Profile& profile) {
  std::unordered_map<uint32_t, size_t> by_tid;
  for (size_t i = 0; i < profile.threads.size(); ++i) by_tid.try_emplace(profile.threads[i].tid, i);
  std::vector<size_t> parent(profile.threads.size(), SIZE_MAX);
  for (size_t i = 0; i < profile.threads.size(); ++i) {
    const Thread& t = profile.threads[i];
    auto it = by_tid.find(t.creator_tid);
    if (t.creator_tid != 0 && it != by_tid.end() && it->second != i) parent[i] = it->second;
  }
  return forest(parent);
}

std::vector<ForestEntry> process_forest(const Profile& profile) {
  std::unordered_map<uint32_t, size_t> by_pid;
  for (size_t i = 0; i < profile.processes.size(); ++i) by_pid.try_emplace(profile.processes[i].pid, i);
  std::vector<size_t> parent(profile.processes.size(), SIZE_MAX);
  for (size_t i = 0; i < profile.processes.size(); ++i) {
    const Process& p = profile.processes[i];
    auto it = by_pid.find(p.ppid);
    if (p.ppid != 0 && it != by_pid.end() && it->second != i) parent[i] = it->second;
  }
  return forest(parent);
}

int64_t earliest_thread_start_ns(const Profile& profile) {
  if (profile.threads.empty()) return 0;
  int64_t earliest = profile.threads.front().start_ns;
  for (const Thread& t : profile.threads) earliest = std::min(earliest, t.start_ns);
  return earliest;
}

}  // namespace callprof

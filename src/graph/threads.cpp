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

// Links items to their parents by id (0: none); ids that repeat keep their first item.
template <typename T, typename IdOf, typename ParentOf>
std::vector<ForestEntry> forest_by_id(const std::vector<T>& items, IdOf id_of, ParentOf parent_of) {
  std::unordered_map<uint32_t, size_t> by_id;
  for (size_t i = 0; i < items.size(); ++i) by_id.try_emplace(id_of(items[i]), i);
  std::vector<size_t> parent(items.size(), SIZE_MAX);
  for (size_t i = 0; i < items.size(); ++i) {
    uint32_t p = parent_of(items[i]);
    auto it = by_id.find(p);
    if (p != 0 && it != by_id.end() && it->second != i) parent[i] = it->second;
  }
  return forest(parent);
}

std::vector<ForestEntry> thread_forest(const Profile& profile) {
  return forest_by_id(
      profile.threads, [](const Thread& t) { return t.tid; }, [](const Thread& t) { return t.creator_tid; });
}

std::vector<ForestEntry> process_forest(const Profile& profile) {
  return forest_by_id(
      profile.processes, [](const Process& p) { return p.pid; }, [](const Process& p) { return p.ppid; });
}

int64_t earliest_thread_start_ns(const Profile& profile) {
  if (profile.threads.empty()) return 0;
  int64_t earliest = profile.threads.front().start_ns;
  for (const Thread& t : profile.threads) earliest = std::min(earliest, t.start_ns);
  return earliest;
}

}  // namespace callprof

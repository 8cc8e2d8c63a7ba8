#include "record/exact_callers.h"

#include <algorithm>

#include "model/transform/attach_syscalls.h"

namespace callprof::record {
namespace {

Metrics leaf_metrics(const SyscallSums& s) {
  Metrics m;
  s.add_to(m);
  return m;
}

}  // namespace

void ExactCallerCalls::add(const syscalls::SyscallEvent& e, syscalls::ExactCaller caller, std::string_view name,
                           uint64_t duration_ns, int error) {
  const auto seen = images_.find(e.pid);
  uint32_t image = seen == images_.end() ? 0 : seen->second;
  // A successful execve returns in the new image, but its caller is the old image's.
  constexpr uint32_t kExecve = 59, kExecveat = 322;
  if ((e.nr == kExecve || e.nr == kExecveat) && e.ret == 0 && image > 0) --image;
  ThreadCalls& t = threads_[ThreadKey{e.pid, e.tid, image}];
  t.first_ns = std::min(t.first_ns, int64_t(e.start_ns));
  t.sites[Site{caller.node, e.nr, caller.fn}].add(duration_ns, error);
  SyscallStats& stats = t.stats[e.nr];
  if (stats.name.empty()) stats.name = std::string(name), stats.number = e.nr;
  stats.add(duration_ns, error);
}

void ExactCallerCalls::attach(Profile& exact, const std::vector<ThreadNodes>& nodes) const {
  SyscallFacts& facts = exact.meta.syscalls ? *exact.meta.syscalls : exact.meta.syscalls.emplace();
  std::map<uint32_t, FunctionId> leaves;  // call number -> `[syscall] NAME`
  for (const auto& [key, calls] : threads_) {
    const ThreadNodes* t = thread_nodes_at(nodes, key.pid, key.tid, calls.first_ns);
    uint64_t total = 0;
    for (const auto& [site, sums] : calls.sites) total += sums.calls;
    facts.exact_callers += total;
    if (!t) {  // the image wrote no dump: nowhere to hang them
      facts.exact_callers_unplaced += total;
      continue;
    }
    Thread& into = exact.threads[t->thread];
    for (const auto& [site, sums] : calls.sites) {
      auto leaf = leaves.find(site.nr);
      if (leaf == leaves.end())
        leaf = leaves.emplace(site.nr, syscall_leaf_function(exact, calls.stats.at(site.nr).name)).first;
      const NodeId at = t->placed(site.node, site.fn);
      if (at == kNoNode) facts.exact_callers_unplaced += sums.calls;
      hang_syscall_leaf(into, at == kNoNode ? kRootNode : at, leaf->second, leaf_metrics(sums));
    }
    std::vector<SyscallStats> stats;
    for (const auto& [nr, s] : calls.stats) stats.push_back(s);
    merge_syscall_stats(into.syscalls, stats);
  }
}

}  // namespace callprof::record

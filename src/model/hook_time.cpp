#include "model/hook_time.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "model/lineage.h"
#include "model/transform/compensate.h"

namespace callprof {

HookTime hook_time(const Profile& p, std::span<const size_t> threads, std::span<const uint64_t> calls,
                   uint64_t folded_calls, double raw_ns) {
  HookTime h;
  if (!has_hook_costs(p)) return h;
  const std::vector<size_t> process_of = thread_processes(p);
  uint64_t all = 0;
  double cost_ns = 0;  // over the calls: the hooked ones then cost their average
  for (size_t t : threads) {
    const size_t proc = process_of[t];
    if (proc == kNoIndex || !has_hook_costs(p.processes[proc])) continue;
    all += calls[t];
    cost_ns += double(calls[t]) * (p.processes[proc].hook_inner_ns + p.processes[proc].hook_outer_ns);
  }
  if (all == 0) return h;
  h.hooked_calls = all > folded_calls ? all - folded_calls : 0;
  h.hook_ns = double(h.hooked_calls) * cost_ns / double(all);
  // An estimate: where nearly all of a run is the hooks (fib(27)), it can exceed what was
  // measured; it is never more than all of it.
  if (raw_ns > 0) h.hook_ns = std::min(h.hook_ns, raw_ns);
  h.recorded_ns = raw_ns;
  return h;
}

HookTime hook_time(const Profile& p) {
  std::vector<uint64_t> calls;
  uint64_t folded_calls = 0;
  double raw_ns = 0;  // every node's own time: the trees' totals
  for (const Thread& t : p.threads) {
    uint64_t c = 0;
    const bool folded = t.tree.base_table().has(Metric::FoldedCalls);
    for (NodeId n = 1; n < t.tree.size(); ++n) {
      const MetricRow m = t.tree.base(n);
      c += uint64_t(m[Metric::Calls]);
      raw_ns += double(m[Metric::WallNs]);
      if (folded) folded_calls += uint64_t(m[Metric::FoldedCalls]);
    }
    calls.push_back(c);
  }
  std::vector<size_t> all(p.threads.size());
  std::iota(all.begin(), all.end(), 0);
  return hook_time(p, all, calls, folded_calls, raw_ns);
}

}  // namespace callprof

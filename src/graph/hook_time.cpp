#include "graph/hook_time.h"

#include <numeric>

#include "graph/folded.h"
#include "model/lineage.h"
#include "model/transform/compensate.h"

namespace callprof {

HookTime hook_time(const Profile& p, std::span<const size_t> threads, std::span<const ThreadTotals> totals,
                   uint64_t folded_calls, double raw_ns) {
  HookTime h;
  if (!has_hook_costs(p)) return h;
  const std::vector<size_t> process_of = thread_processes(p);
  uint64_t calls = 0;
  double cost_ns = 0;  // over the calls: the hooked ones then cost their average
  for (size_t t : threads) {
    const size_t proc = process_of[t];
    if (proc == kNoIndex || !has_hook_costs(p.processes[proc])) continue;
    calls += totals[t].calls;
    cost_ns += double(totals[t].calls) * (p.processes[proc].hook_inner_ns + p.processes[proc].hook_outer_ns);
  }
  if (calls == 0) return h;
  h.hooked_calls = calls > folded_calls ? calls - folded_calls : 0;
  h.hook_ns = double(h.hooked_calls) * cost_ns / double(calls);
  h.recorded_ns = raw_ns;
  return h;
}

HookTime hook_time(const Profile& p) {
  std::vector<ThreadTotals> totals;
  FoldedTally folded;
  double raw_ns = 0;
  for (const Thread& t : p.threads) {
    totals.push_back(thread_totals(t.tree));
    folded.add(t.tree);
    raw_ns += double(totals.back().total_ns);
  }
  uint64_t folded_calls = 0;
  for (const FoldedFunction& f : folded.sorted()) folded_calls += f.folded_calls;
  std::vector<size_t> all(p.threads.size());
  std::iota(all.begin(), all.end(), 0);
  return hook_time(p, all, totals, folded_calls, raw_ns);
}

}  // namespace callprof

#include "collect/probes/probe_budget.h"

#include <algorithm>
#include <map>
#include <utility>

namespace callprof::probes {

double ProbeBudget::added_percent(uint64_t cost_ns, uint64_t window_ns) {
  // A thread that did nothing but take traps would have run in next to no time: capped at
  // 100x its window's worth rather than infinite.
  const uint64_t plain = window_ns > cost_ns ? window_ns - cost_ns : 0;
  return 100.0 * double(cost_ns) / double(std::max<uint64_t>(plain, std::max<uint64_t>(window_ns / 100, 1)));
}

void ProbeBudget::hit(uint32_t tid, uint32_t function, uint64_t cost_ns, uint64_t time_ns) {
  if (!enabled() || stopped(function)) return;
  if (!started_) {
    started_ = true;
    window_start_ = time_ns;
  } else if (time_ns >= window_start_ + window_ns_) {
    close_window(time_ns);
    window_start_ = time_ns;
  }
  Cost& c = costs_[uint64_t(tid) << 32 | function];
  c.ns += cost_ns;
  ++c.hits;
}

void ProbeBudget::close_window(uint64_t end_ns) {
  const uint64_t window = end_ns - window_start_;
  std::map<uint32_t, uint64_t> by_thread;  // what each thread paid
  for (const auto& [key, c] : costs_) by_thread[uint32_t(key >> 32)] += c.ns;
  for (;;) {
    auto worst = std::max_element(by_thread.begin(), by_thread.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    if (worst == by_thread.end() || added_percent(worst->second, window) <= percent_) break;
    // The function that cost the worst thread most goes first.
    uint32_t function = 0;
    uint64_t most = 0;
    for (const auto& [key, c] : costs_)
      if (uint32_t(key >> 32) == worst->first && c.ns > most && !stopped(uint32_t(key)))
        most = c.ns, function = uint32_t(key);
    if (most == 0) break;
    Stop stop{function, 0, 0, window};
    for (const auto& [key, c] : costs_) {
      if (uint32_t(key) != function) continue;
      stop.added_percent = std::max(stop.added_percent, added_percent(c.ns, window));
      stop.hits += c.hits;
      by_thread[uint32_t(key >> 32)] -= c.ns;
    }
    stopped_.insert(function);
    stops_.push_back(stop);
  }
  costs_.clear();
}

}  // namespace callprof::probes

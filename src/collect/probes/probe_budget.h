// Probe mode's budget (record --probe-budget PCT): how much the probes' traps add to the
// program's run time, estimated from each hit's measured cost, checked per window of the
// hits' own time. Past the budget, the functions whose hits cost most are chosen to stop
// being probed, until what is left fits. Per thread: a thread's hits slow that thread, so
// four threads each at 5 % make a program 5 % slower, not 20 %. Pure: driven by tests.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace callprof::probes {

class ProbeBudget {
 public:
  static constexpr uint64_t kWindowNs = 100'000'000;

  // `percent`: the added time allowed, in percent of the time the program would have taken;
  // 0 (or less): no budget.
  explicit ProbeBudget(double percent, uint64_t window_ns = kWindowNs) : percent_(percent), window_ns_(window_ns) {}
  bool enabled() const { return percent_ > 0; }
  double percent() const { return percent_; }

  // A hit of a probe of `function` on thread `tid` at `time_ns` (hits come in time order),
  // costing `cost_ns`. A hit at or after the end of the current window closes it first.
  void hit(uint32_t tid, uint32_t function, uint64_t cost_ns, uint64_t time_ns);

  struct Stop {
    uint32_t function = 0;
    double added_percent = 0;  // what its hits added to the thread that paid most for them
    uint64_t hits = 0;         // in the window that decided
    uint64_t window_ns = 0;
  };
  // What the windows closed so far chose to stop, once each; the caller stops those probes.
  std::vector<Stop> take_stops() { return std::exchange(stops_, {}); }
  bool stopped(uint32_t function) const { return stopped_.count(function) > 0; }

  // Added time in percent for `cost_ns` of probe hits in `window_ns` of a thread's time:
  // cost over what the thread would have run without them.
  static double added_percent(uint64_t cost_ns, uint64_t window_ns);

 private:
  void close_window(uint64_t end_ns);

  double percent_;
  uint64_t window_ns_;
  uint64_t window_start_ = 0;
  bool started_ = false;
  struct Cost {
    uint64_t ns = 0, hits = 0;
  };
  std::unordered_map<uint64_t, Cost> costs_;  // by (tid << 32 | function), this window
  std::unordered_set<uint32_t> stopped_;
  std::vector<Stop> stops_;
};

}  // namespace callprof::probes

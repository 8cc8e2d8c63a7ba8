#include "record/runtime_environment.h"

#include <algorithm>
#include <csignal>
#include <cstring>

#include "util/numbers.h"

namespace callprof::record {

Result<int> parse_signal(const std::string& text) {
  std::string name = text.rfind("SIG", 0) == 0 ? text.substr(3) : text;
  if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit)) {
    int n = std::stoi(name);
    if (n > 0 && n < NSIG) return n;
  }
  for (int n = 1; n < NSIG; ++n)
    if (const char* abbrev = sigabbrev_np(n); abbrev && name == abbrev) return n;
  return make_error("'" + text + "' is not a signal (examples: USR2, SIGUSR1, 12)");
}

Result<uint64_t> timeline_min_ns(const RecordArgs& a) {
  auto ns = parse_duration_ns(a.timeline_min_duration, true);
  if (!ns) return make_error("--timeline-min-duration: " + ns.error().message);
  return *ns;
}

Result<Environment> runtime_environment(const RecordArgs& a, const std::string& plan_path) {
  Environment env;
  if (a.no_offcpu) env.push_back({"CALLPROF_OFFCPU", "0"});
  if (a.faults) env.push_back({"CALLPROF_FAULTS", "1"});
  if (a.alloc) env.push_back({"CALLPROF_ALLOC", "1"});
  if (a.libcalls) env.push_back({"CALLPROF_LIBCALLS", "1"});
  if (a.raw_clock) env.push_back({"CALLPROF_COMPENSATE", "0"});
  if (a.auto_fold != AutoFoldScope::Inlined) env.push_back({"CALLPROF_AUTO_FOLD", std::to_string(int(a.auto_fold))});
  if (a.ordered_clock) env.push_back({"CALLPROF_ORDERED_CLOCK", "1"});
  if (!a.keep_hooks) env.push_back({"CALLPROF_REMOVE_HOOKS", "1"});
  if (a.fold_counts != FoldCounts::Called) env.push_back({"CALLPROF_COUNT_FOLDED", std::to_string(int(a.fold_counts))});
  // Each thread tells the kernel probe where its shadow stack is: exact callers of system
  // calls, and the node each sample lands under.
  if (a.syscalls.enabled() || a.exact_sample_hz() > 0) env.push_back({"CALLPROF_SYSCALL_CONTEXT", "1"});
  if (a.max_depth > 0) env.push_back({"CALLPROF_MAX_DEPTH", std::to_string(a.max_depth)});
  if (a.max_nodes > 0) env.push_back({"CALLPROF_MAX_NODES", std::to_string(a.max_nodes)});
  if (!a.min_duration.empty()) {
    auto ns = parse_duration_ns(a.min_duration);
    if (!ns) return make_error("--min-duration: " + ns.error().message);
    env.push_back({"CALLPROF_MIN_NS", std::to_string(*ns)});
  }
  if (!a.snapshot_signal.empty()) {
    auto sig = parse_signal(a.snapshot_signal);
    if (!sig) return make_error("--snapshot-signal: " + sig.error().message);
    if (*sig == SIGKILL || *sig == SIGSTOP)
      return make_error("--snapshot-signal: SIGKILL and SIGSTOP cannot be caught");
    env.push_back({"CALLPROF_SNAPSHOT_SIGNAL", std::to_string(*sig)});
  }
  if (a.snapshot_interval_ns > 0)
    env.push_back(
        {"CALLPROF_SNAPSHOT_INTERVAL_MS", std::to_string(std::max<int64_t>(1, a.snapshot_interval_ns / 1'000'000))});
  if (!plan_path.empty()) env.push_back({"CALLPROF_FUNCTIONS", plan_path});
  if (a.timeline) {
    auto ns = timeline_min_ns(a);
    if (!ns) return ns.error();
    env.push_back({"CALLPROF_TIMELINE_EVENTS", std::to_string(a.timeline_events)});
    env.push_back({"CALLPROF_TIMELINE_MIN_NS", std::to_string(*ns)});
  }
  return env;
}

}  // namespace callprof::record

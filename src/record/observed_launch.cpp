#include "record/observed_launch.h"

#include <optional>

#include "collect/perf/perf_launch_gate.h"

namespace callprof::record {

Result<ObservedLaunch> launch_observed(LaunchSpec spec, const perf::SamplingOptions& options,
                                       const std::function<Status(pid_t)>& watch) {
  auto gate = perf::LaunchGate::create();
  if (!gate) return gate.error();
  std::optional<Result<perf::PerfSession>> session;
  Status traced = Ok{};
  spec.in_child = [&] { return gate->wait_in_child(); };
  spec.in_parent = [&](pid_t pid) {
    gate->close_child_end();
    session.emplace(perf::PerfSession::open_launched(pid, options));
    if (*session) traced = watch(pid);
    if (*session && traced)
      gate->release();
    else
      gate->abandon();
  };
  auto pid = launch(spec);
  if ((session && !*session) || !traced) {
    if (pid) (void)wait_for_exit(*pid);  // it exits 127 at the abandoned gate
    return !traced ? traced.error() : (*session).error();
  }
  if (!pid) return pid.error();
  return ObservedLaunch{*pid, std::move(*session).value()};
}

}  // namespace callprof::record

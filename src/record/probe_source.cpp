#include "record/probe_source.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "collect/perf/perf_target.h"
#include "collect/probes/probe_calibration.h"
#include "record/stack_source.h"
#include "target/shared_libraries.h"
#include "util/clock.h"
#include "util/strings.h"

namespace callprof::record {
namespace {

namespace fs = std::filesystem;

// Every site is a descriptor per CPU (and per thread when attaching).
void raise_file_limit(size_t wanted) {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= wanted) return;
  r.rlim_cur = std::min<rlim_t>(r.rlim_max, wanted);
  setrlimit(RLIMIT_NOFILE, &r);
}

}  // namespace

std::vector<std::string> launched_modules(const ExecutableInfo& exe) {
  std::error_code ec;
  std::vector<std::string> modules{fs::canonical(exe.path, ec).string()};
  if (exe.dynamic)
    if (auto libs = shared_libraries(exe.path))
      for (const auto& lib : *libs) modules.push_back(lib);
  return modules;
}

std::vector<std::string> attached_modules(pid_t pid) {
  std::error_code ec;
  std::vector<std::string> modules{fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec).string()};
  std::set<std::string> seen{modules.front()};
  for (const perf::Mapping& m : perf::read_mappings(pid))
    if (!m.path.empty() && m.path[0] == '/' && seen.insert(m.path).second) modules.push_back(m.path);
  return modules;
}

Result<std::unique_ptr<ProbeSource>> ProbeSource::prepare(const RecordArgs& args,
                                                          const std::vector<std::string>& modules, Reporter& reporter) {
  const ProbeArgs& a = args.probes;
  auto plan = probes::plan_probes(modules, {a.functions, a.modules, a.limit, !a.no_return_probes});
  if (!plan) return plan.error();
  if (plan->matched > plan->functions.size())
    reporter.warn(
        fmt::format("{} functions match --probe; probing the first {} (--probe-limit; or narrow --probe "
                    "or --probe-module)",
                    plan->matched, plan->functions.size()));
  std::unique_ptr<ProbeSource> source(new ProbeSource(reporter));
  source->args_ = a;
  source->compensate_ = !args.raw_clock;
  source->plan_ = std::move(*plan);
  return source;
}

void ProbeSource::configure(perf::SamplingOptions& o, size_t threads) {
  o.uprobes = probes::uprobe_sites(plan_.functions, sites_);
  // Pairing needs the stack pointer at every hit, and the caller of an entry its return
  // address: registers always, and 512 bytes of stack unless --call-graph dwarf sized it.
  if (o.unwind != perf::UnwindMode::Dwarf) o.stack_bytes = 512;
  o.unwind = perf::UnwindMode::Dwarf;
  // Per CPU: 32 MiB (~45,000 entry hits before the reader must have run; 8 MiB lost hits of
  // 4 busy threads on a loaded 2-CPU machine), at most 256 MiB in all, at least 8 MiB.
  const size_t cpus = size_t(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  o.ring_bytes = 8 << 20;
  while (o.ring_bytes < (32u << 20) && o.ring_bytes * 2 * cpus <= (256u << 20)) o.ring_bytes *= 2;
  raise_file_limit((o.uprobes.size() + 2) * threads * size_t(std::max(1L, sysconf(_SC_NPROCESSORS_CONF))) + 256);
  auto costs = probes::measure_probe_costs(o);
  if (costs)
    costs_ = *costs;
  else
    reporter_.warn(costs.error().message);
  reporter_.note(fmt::format("probe mode: {} function{} ({} probe sites){}", plan_.functions.size(),
                             plan_.functions.size() == 1 ? "" : "s", o.uprobes.size(),
                             costs ? fmt::format(", µs per hit measured: {:.2f} single-stepped, {:.2f} emulated, "
                                                 "{:.2f} return probe",
                                                 double(costs_.single_step_ns) / 1e3, double(costs_.emulated_ns) / 1e3,
                                                 double(costs_.return_ns) / 1e3)
                                   : std::string()));
}

perf::RecordSink& ProbeSource::start() {
  collector_ = std::make_unique<probes::ProbeCollector>(stacks_->collector(), plan_.functions, sites_);
  collector_->set_event_sites(stacks_->perf()->uprobe_sites());
  collector_->set_costs(costs_, compensate_);
  collector_->set_budget(args_.budget_percent);
  start_ns_ = monotonic_ns();
  return *collector_;
}

void ProbeSource::keep_budget() {
  if (!collector_) return;
  perf::PerfSession& session = *stacks_->perf();
  for (const probes::ProbeBudget::Stop& stop : collector_->take_stops()) {
    std::vector<uint32_t> sites;
    for (uint32_t i = 0; i < sites_.size(); ++i)
      if (sites_[i].function == stop.function) sites.push_back(i);
    const uint64_t at = monotonic_ns();  // its hits from here on are left out
    session.remove_uprobes(sites);
    collector_->stop_function(stop.function, at);
    const std::string& name = collector_->function(stop.function).name;
    stopped_.push_back({stop.function, StoppedProbe{name, at - start_ns_, 0, stop.added_percent}});
    reporter_.warn(
        fmt::format("probe budget: the probes of {} added ~{:.0f} % to the run ({} hits in {:.2f} s; "
                    "--probe-budget {:g}): no longer probed, its counts and times stop {:.2f} s in "
                    "(--probe-budget 0 keeps every probe)",
                    name, stop.added_percent, stop.hits, double(stop.window_ns) / 1e9, args_.budget_percent,
                    double(at - start_ns_) / 1e9));
  }
}

void ProbeSource::target_ended() {
  if (collector_) collector_->finish(monotonic_ns());
}

std::string ProbeSource::written(const Profile& p, const std::string& path, bool) const {
  const ProbeFacts& f = *p.meta.probes;
  const uint64_t calls = collector_ ? collector_->counts().pairing.calls : 0;
  return fmt::format("wrote {}: {} calls of {} probed function{}, {} hits (~{:.1f} ms of probe cost), {} thread{}",
                     path, calls, f.probed, f.probed == 1 ? "" : "s", f.entries + f.exits,
                     double((f.entries + f.exits) * f.cost_per_hit_ns) / 1e6, p.threads.size(),
                     p.threads.size() == 1 ? "" : "s");
}

void ProbeSource::contribute(Assembly& a) {
  Profile& profile = *a.profile;
  const perf::PerfSession& session = *stacks_->perf();
  const probes::ProbeCollector::Counts c = collector_ ? collector_->counts() : probes::ProbeCollector::Counts{};
  ProbeFacts& x = profile.meta.probes.emplace();
  x.functions = join(args_.functions, " ");
  x.modules = args_.modules;
  x.probed = plan_.functions.size();
  x.refused_sites = session.refused_uprobes();
  x.sites = sites_.size() - x.refused_sites;
  x.entries = c.entries;
  x.exits = c.exits;
  x.unwound = c.pairing.unwound;
  x.unfinished = c.pairing.unfinished;
  x.unmatched_exits = c.pairing.unmatched_exits;
  // The mean over this recording's hits, each at the cost of its kind: hits × this is the
  // estimated distortion.
  const uint64_t hits = c.entries + c.exits;
  x.cost_per_hit_ns = hits && collector_  ? collector_->probe_time_ns() / hits
                      : costs_.measured() ? costs_.single_step_ns
                                          : 0;
  x.lost = session.stats().decode.lost_records + session.stats().decode.lost_samples;
  x.budget_percent = args_.budget_percent;
  for (const Stopped& s : stopped_) {
    x.stopped.push_back(s.facts);
    x.stopped.back().calls = collector_->calls_of(s.function);
  }
  x.cut = c.pairing.cut;
  x.unmeasurable_calls = c.unmeasurable_calls;
  if (collector_) x.unmeasurable = collector_->unmeasurable_functions();
  x.truncated_calls = c.truncated_calls;
  profile.meta.compensated = collector_ && collector_->compensated();
  if (x.lost) {
    profile.meta.warnings.push_back(fmt::format(
        "{} records were lost (the rings filled faster than callprof read them): call counts are lower bounds",
        x.lost));
    reporter_.warn(profile.meta.warnings.back());
  }
  if (x.refused_sites) {
    profile.meta.warnings.push_back(
        fmt::format("{} probe sites were refused by the kernel and left out", x.refused_sites));
    reporter_.warn(profile.meta.warnings.back());
  }
}

}  // namespace callprof::record

// Probe mode (SPEC §1.3): uprobes on the entries and exits of the functions --probe names,
// opened in a perf session on a launched program (held before exec) or a running PID; the
// hits are paired into calls on the paths the stack engine unwinds (collect/probes).
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/sample_command.h"
#include "collect/probes/probe_calibration.h"
#include "collect/probes/probe_collector.h"
#include "collect/probes/probe_plan.h"
#include "collect/sampling/perf_target.h"
#include "target/shared_libraries.h"
#include "trace/profile_file.h"
#include "util/strings.h"

namespace callprof::cli {
namespace {

namespace fs = std::filesystem;
using namespace sampling;
using probes::ProbeCollector;

struct Probing {
  probes::ProbePlan plan;
  std::vector<probes::ProbeSite> sites;
  uint64_t cost_ns = 0;
};

// Every site is a descriptor per CPU (and per thread when attaching).
void raise_file_limit(size_t wanted) {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= wanted) return;
  r.rlim_cur = std::min<rlim_t>(r.rlim_max, wanted);
  setrlimit(RLIMIT_NOFILE, &r);
}

// The plan, its sites in the session's options, and the measured cost of a hit. Probes
// need the stack pointer at every hit (to pair exits with entries): the registers and a
// little of the stack are always taken, as with --call-graph dwarf.
Result<Probing> prepare(const ProbeArgs& a, const std::vector<std::string>& modules, SamplingOptions& o,
                        size_t threads, bool quiet) {
  auto plan = probes::plan_probes(modules, {a.functions, a.modules, a.limit});
  if (!plan) return plan.error();
  if (!quiet && plan->matched > plan->functions.size())
    warn(fmt::format("{} functions match --probe; probing the first {} (--probe-limit; or narrow --probe / "
                     "--probe-module)", plan->matched, plan->functions.size()));
  Probing p{std::move(*plan), {}, 0};
  o.uprobes = probes::uprobe_sites(p.plan.functions, p.sites);
  if (o.unwind != UnwindMode::Dwarf) o.stack_bytes = 512;  // enough for the caller of the entry
  o.unwind = UnwindMode::Dwarf;
  o.ring_bytes = 8 << 20;  // per CPU: ~10,000 hits, ~50 ms of a program that does nothing else
  raise_file_limit((o.uprobes.size() + 2) * threads * size_t(std::max(1L, sysconf(_SC_NPROCESSORS_CONF))) + 256);
  auto cost = probes::measure_probe_cost_ns(o);
  if (cost) p.cost_ns = *cost;
  else if (!quiet) warn(cost.error().message);
  if (!quiet)
    note(fmt::format("probe mode: {} function{} ({} probe sites){}", p.plan.functions.size(),
                     p.plan.functions.size() == 1 ? "" : "s", o.uprobes.size(),
                     cost ? fmt::format(", {:.2f} µs per hit measured", double(p.cost_ns) / 1e3) : std::string()));
  return p;
}

ProbeFacts probe_facts(const ProbeArgs& a, const Probing& p, const ProbeCollector& collector, const PerfSession& session) {
  const ProbeCollector::Counts c = collector.counts();
  ProbeFacts x;
  x.functions = join(a.functions, " ");
  x.modules = a.modules;
  x.probed = p.plan.functions.size();
  x.sites = p.sites.size() - session.refused_uprobes().size();
  x.refused_sites = session.refused_uprobes().size();
  x.entries = c.entries;
  x.exits = c.exits;
  x.unwound = c.pairing.unwound;
  x.unfinished = c.pairing.unfinished;
  x.unmatched_exits = c.pairing.unmatched_exits;
  x.cost_per_hit_ns = p.cost_ns;
  x.lost = session.stats().decode.lost_records + session.stats().decode.lost_samples;
  return x;
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

struct Recorded {
  const std::string& output;
  std::string command;
  int64_t duration_ns;
  bool quiet;
};

int write_probed(SampleCollector& collector, ProbeCollector& probes, const PerfSession& session, const Probing& p,
                 const ProbeArgs& a, const SamplingArgs& s, SyscallTracing* tracing, const Recorded& r) {
  probes.finish(monotonic_ns());
  std::vector<std::string> warnings;
  Profile profile = collector.build(warnings);
  if (!r.quiet)
    for (const auto& w : warnings) warn(w);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  profile.meta.command = r.command;
  profile.meta.mode = "probe";
  profile.meta.hostname = host;
  profile.meta.duration_ns = r.duration_ns;
  profile.meta.callprof_version = CALLPROF_VERSION;
  profile.meta.probes = probe_facts(a, p, probes, session);
  profile.meta.compensated = probes.compensated();
  if (s.frequency > 0) {
    SamplingFacts& x = profile.meta.sampling.emplace();
    x.frequency_hz = s.frequency;
    x.event = s.event;
    x.unwind = "dwarf";
    x.samples = collector.counts().samples;
    x.lost_records = session.stats().decode.lost_records;
    x.lost_samples = session.stats().decode.lost_samples;
  }
  if (tracing) tracing->annotate(profile.meta);
  keep_previous(r.output);
  if (auto st = write_profile(profile, r.output); !st) return fail(st.error().message);
  if (!r.quiet) {
    const ProbeFacts& f = *profile.meta.probes;
    note(fmt::format("wrote {}: {} calls of {} probed functions, {} hits (~{:.1f} ms of probe cost), {} thread{}",
                     r.output, probes.counts().pairing.calls, f.probed, f.entries + f.exits,
                     double((f.entries + f.exits) * f.cost_per_hit_ns) / 1e6, profile.threads.size(),
                     profile.threads.size() == 1 ? "" : "s"));
    if (f.lost)
      warn(fmt::format("{} records were lost (the rings filled faster than callprof read them): call counts are "
                       "lower bounds", f.lost));
    if (f.refused_sites) warn(fmt::format("{} probe sites were refused by the kernel and left out", f.refused_sites));
  }
  return 0;
}

std::vector<std::string> launched_modules(const ExecutableInfo& exe) {
  std::error_code ec;
  std::vector<std::string> modules{fs::canonical(exe.path, ec).string()};
  if (exe.dynamic)
    if (auto libs = shared_libraries(exe.path))
      for (const auto& lib : *libs) modules.push_back(lib);
  return modules;
}

// The files mapped executable in a running process, its executable first.
std::vector<std::string> attached_modules(pid_t pid) {
  std::error_code ec;
  std::vector<std::string> modules{fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec).string()};
  std::set<std::string> seen{modules.front()};
  for (const Mapping& m : read_mappings(pid))
    if (!m.path.empty() && m.path[0] == '/' && seen.insert(m.path).second) modules.push_back(m.path);
  return modules;
}

std::unique_ptr<SyscallTracing> open_tracing(const SyscallArgs& a, bool children, std::string& error) {
  if (!a.enabled()) return nullptr;
  auto t = SyscallTracing::open(a, children);
  if (!t) error = t.error().message;
  return t ? std::move(*t) : nullptr;
}

}  // namespace

int record_probed(const RecordArgs& a, const ExecutableInfo& exe) {
  SamplingArgs sampling = a.sampling;
  SamplingOptions options = session_options(sampling);
  if (sampling.frequency == 999 && !a.sampling.off_cpu) options.frequency_hz = sampling.frequency = 0;
  auto probing = prepare(a.probes, launched_modules(exe), options, 1, a.quiet);
  if (!probing) return fail(probing.error().message);
  std::string error;
  auto tracing = open_tracing(a.syscalls, sampling.children, error);
  if (!error.empty()) return fail(error);
  const auto start = std::chrono::steady_clock::now();
  LaunchSpec spec;
  spec.argv = a.command;
  auto launched = launch_observed(spec, options, tracing.get());
  if (!launched) return fail(launched.error().message);
  SampleCollector collector(UnwindMethod::Dwarf);
  ProbeCollector probes(collector, probing->plan.functions, probing->sites);
  probes.set_event_sites(launched->session.uprobe_sites());
  if (!a.raw_clock) probes.set_cost_per_hit_ns(probing->cost_ns);
  observe_until_exit(*launched, tracing.get(), collector, &probes);
  auto status = wait_for_exit(launched->pid);
  if (!status) return fail(status.error().message);
  const int64_t duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  int rc = write_probed(collector, probes, launched->session, *probing, a.probes, sampling, tracing.get(),
                        {a.output, join(a.command), duration, a.quiet});
  if (status->signaled && !a.quiet) note(fmt::format("the program was killed by signal {}", status->signal));
  if (rc != 0 && !status->signaled && status->code == 0) return rc;
  exit_like(*status);
}

int attach_probed(const AttachProbeArgs& a) {
  if (auto st = check_process(a.pid); !st) return fail("cannot attach to process " + std::to_string(a.pid) + ": " + st.error().message);
  SamplingArgs sampling = a.sampling;
  SamplingOptions options = session_options(sampling);
  if (sampling.frequency == 999 && !a.sampling.off_cpu) options.frequency_hz = sampling.frequency = 0;
  auto probing = prepare(a.probes, attached_modules(a.pid), options, thread_ids(a.pid).size(), a.quiet);
  if (!probing) return fail(probing.error().message);
  std::string error;
  auto tracing = open_tracing(a.syscalls, sampling.children, error);
  if (!error.empty()) return fail(error);
  auto session = PerfSession::attach(a.pid, options);
  if (!session) return fail(session.error().message);
  if (tracing)
    if (auto st = tracing->add_process(a.pid); !st) return fail(st.error().message);
  SampleCollector collector(UnwindMethod::Dwarf);
  collector.add_initial(session->initial_threads(), session->initial_mappings());
  ProbeCollector probes(collector, probing->plan.functions, probing->sites);
  probes.set_event_sites(session->uprobe_sites());
  probes.set_cost_per_hit_ns(probing->cost_ns);
  if (!a.quiet)
    note(fmt::format("attached to {} ({} threads); {}", a.pid, session->initial_threads().size(),
                     a.duration_ns > 0 ? fmt::format("for {} s", double(a.duration_ns) / 1e9) : std::string("Ctrl-C to stop")));
  const auto start = std::chrono::steady_clock::now();
  observe_attached(*session, tracing.get(), collector, probes, a.duration_ns);
  const int64_t duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  std::string command = "pid " + std::to_string(a.pid);
  return write_probed(collector, probes, *session, *probing, a.probes, sampling, tracing.get(),
                      {a.output, command, duration, a.quiet});
}

}  // namespace callprof::cli

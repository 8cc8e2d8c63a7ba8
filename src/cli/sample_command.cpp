// Sampling mode's commands: a perf session on the launched program (held before exec by a
// gate until the events are open) or on a running PID, drained until the target exits,
// the duration ends or Ctrl-C; then the stacks become the profile.
#include "cli/sample_command.h"

#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/output_file.h"
#include "collect/sampling/ordered_sink.h"
#include "collect/sampling/perf_launch_gate.h"
#include "collect/sampling/perf_session.h"
#include "collect/sampling/sample_collector.h"
#include "target/launcher.h"
#include "trace/profile_file.h"
#include "util/strings.h"

namespace callprof::cli {
namespace {

using namespace sampling;

}  // namespace

SamplingOptions session_options(const SamplingArgs& a) {
  SamplingOptions o;
  o.frequency_hz = a.frequency;
  for (SampleEvent e : {SampleEvent::CpuClock, SampleEvent::Cycles, SampleEvent::Instructions, SampleEvent::CacheMisses,
                        SampleEvent::BranchMisses})
    if (a.event == to_string(e)) o.event = e;
  o.unwind = a.call_graph == "dwarf" ? UnwindMode::Dwarf : UnwindMode::FramePointers;
  o.stack_bytes = a.stack_bytes & ~7u;
  o.kernel_stacks = !a.no_kernel;
  o.off_cpu = a.off_cpu;
  o.follow_children = a.children;
  return o;
}

namespace {

UnwindMethod unwind_method(const SamplingArgs& a) {
  return a.call_graph == "dwarf" ? UnwindMethod::Dwarf : UnwindMethod::FramePointers;
}

void configure(SampleCollector& collector, const SamplingArgs& a, bool syscalls_alone) {
  collector.set_syscall_time_is_wall(syscalls_alone);
  if (a.event != "cpu-clock" && a.frequency > 0) collector.set_sample_weight_ns(1'000'000'000 / a.frequency);
}

// Drains until the target exits or `stop()` says so; records (and system calls) pass
// through the ordering buffer into the collector.
template <typename Stop>
void drain(PerfSession& session, SyscallTracing* tracing, SampleCollector& collector, RecordSink& sink, Stop&& stop) {
  OrderedSink ordered(sink);
  while (session.poll(ordered, tracing ? 20 : 100, tracing ? tracing->ring_fd() : -1)) {
    ordered.flush();
    if (tracing) tracing->poll(collector);
    if (stop()) break;
  }
  session.detach(ordered);
  ordered.flush();
  if (tracing) tracing->finish(collector);
}

struct Output {
  std::string path, command;
  bool quiet;
  const SyscallTracing* tracing = nullptr;
};

// What every recording's metadata says about itself.
void stamp(Profile& p, const std::string& command, const char* mode, int64_t duration_ns) {
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  p.meta.command = command;
  p.meta.mode = mode;
  p.meta.hostname = host;
  p.meta.duration_ns = duration_ns;
  p.meta.callprof_version = CALLPROF_VERSION;
}

// System calls traced alone (mode "syscall").
int write_traced(Profile& p, const SampleCollector& collector, const std::string& path, const std::string& command,
                 int64_t duration_ns, bool quiet) {
  stamp(p, command, "syscall", duration_ns);
  if (auto s = write_profile(p, path); !s) return fail(s.error().message);
  if (!quiet) {
    const auto& c = collector.counts();
    const uint64_t lost = p.meta.syscalls ? p.meta.syscalls->lost_events : 0;
    note(fmt::format("wrote {}: {} system calls on {} paths, {} lost, {} thread{}", path, c.syscalls, c.syscall_paths,
                     lost, p.threads.size(), p.threads.size() == 1 ? "" : "s"));
    note(fmt::format("processing: {:.1f} ms for the calls ({} stacks walked by frame rules, {} unwound by libdwfl), "
                     "{:.1f} ms symbolizing and building",
                     double(c.unwind_ns) / 1e6, c.syscall_fast_walks, c.syscall_unwinds, double(c.build_ns) / 1e6));
  }
  return 0;
}

int write_sampled(SampleCollector& collector, const PerfSession& session, const SamplingArgs& a, const Output& out,
                  int64_t duration_ns) {
  std::vector<std::string> warnings;
  Profile p = collector.build(warnings);
  if (!out.quiet)
    for (const auto& w : warnings) warn(w);
  if (out.tracing) {
    out.tracing->annotate(p.meta);
    if (a.frequency == 0) return write_traced(p, collector, out.path, out.command, duration_ns, out.quiet);
  }
  stamp(p, out.command, "sample", duration_ns);
  const auto& c = collector.counts();
  SamplingFacts& x = p.meta.sampling.emplace();
  x.frequency_hz = a.frequency;
  x.event = a.event;
  x.unwind = a.call_graph;
  x.samples = c.samples;
  x.off_cpu_samples = c.off_cpu_samples;
  x.incomplete_stacks = c.incomplete_stacks;
  x.lost_records = session.stats().decode.lost_records;
  x.lost_samples = session.stats().decode.lost_samples;
  if (c.samples + c.off_cpu_samples == 0) {
    if (!out.quiet) warn("no samples were taken (did the program run long enough to be sampled?)");
    return 1;
  }
  keep_previous(out.path);
  if (auto s = write_profile(p, out.path); !s) return fail(s.error().message);
  if (!out.quiet) {
    const uint64_t all = c.samples + c.off_cpu_samples;
    note(fmt::format("wrote {}: {} samples ({} off-CPU), {} lost, {} thread{}", out.path, c.samples, c.off_cpu_samples,
                     session.stats().decode.lost_records + session.stats().decode.lost_samples, p.threads.size(),
                     p.threads.size() == 1 ? "" : "s"));
    note(fmt::format("processing: unwinding {:.1f} ms, symbolizing and building {:.1f} ms ({:.0f} samples/s)",
                     double(c.unwind_ns) / 1e6, double(c.build_ns) / 1e6,
                     double(all) * 1e9 / double(std::max<uint64_t>(1, c.unwind_ns + c.build_ns))));
  }
  return 0;
}

int64_t since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Result<ObservedLaunch> launch_observed(LaunchSpec spec, const SamplingOptions& options, SyscallTracing* tracing) {
  auto gate = LaunchGate::create();
  if (!gate) return gate.error();
  std::optional<Result<PerfSession>> session;
  Status traced = Ok{};
  spec.in_child = [&] { return gate->wait_in_child(); };
  spec.in_parent = [&](pid_t pid) {
    gate->close_child_end();
    session.emplace(PerfSession::open_launched(pid, options));
    if (*session && tracing) traced = tracing->add_process(pid);
    if (*session && traced) gate->release();
    else gate->abandon();
  };
  auto pid = launch(spec);
  if ((session && !*session) || !traced) {
    if (pid) (void)wait_for_exit(*pid);  // it exits 127 at the abandoned gate
    return !traced ? traced.error() : (*session).error();
  }
  if (!pid) return pid.error();
  return ObservedLaunch{*pid, std::move(*session).value()};
}

void observe_until_exit(ObservedLaunch& launched, SyscallTracing* tracing, SampleCollector& collector,
                        RecordSink* sink) {
  // Like a shell running a foreground job: Ctrl-C reaches the program, we stay to write.
  struct sigaction ignore{}, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  drain(launched.session, tracing, collector, sink ? *sink : collector, [] { return false; });
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
}

int record_sampled(const RecordArgs& a, const ExecutableInfo& exe, const std::string& mode) {
  std::unique_ptr<SyscallTracing> tracing;
  SamplingArgs sampling = a.sampling;
  if (mode == "syscall") sampling.frequency = 0;
  if (a.syscalls.enabled()) {
    auto t = SyscallTracing::open(a.syscalls, sampling.children);
    if (!t) return fail(t.error().message);
    tracing = std::move(*t);
  }
  if (!a.quiet && mode == "syscall")
    note(fmt::format("syscall mode: {}: tracing {} with {} stacks", exe.path, a.syscalls.selection, a.syscalls.stacks));
  else if (!a.quiet)
    note(fmt::format("sample mode: {}: {} at {} Hz, {} unwinding{}{}", exe.path, a.sampling.event, a.sampling.frequency,
                     a.sampling.call_graph,
                     exe.has_hooks ? "" : " (no instrumentation hooks: exact mode needs -finstrument-functions)",
                     tracing ? "; tracing system calls " + a.syscalls.selection : std::string()));
  const auto start = std::chrono::steady_clock::now();
  LaunchSpec spec;
  spec.argv = a.command;
  auto launched = launch_observed(spec, session_options(sampling), tracing.get());
  if (!launched) return fail(launched.error().message);
  SampleCollector collector(unwind_method(a.sampling));
  collector.set_timeline_events(a.timeline ? a.timeline_events : 0);
  configure(collector, a.sampling, mode == "syscall");
  observe_until_exit(*launched, tracing.get(), collector);
  auto status = wait_for_exit(launched->pid);
  if (!status) return fail(status.error().message);
  int rc = write_sampled(collector, launched->session, sampling, Output{a.output, join(a.command), a.quiet, tracing.get()},
                         since(start));
  if (status->signaled && !a.quiet) note(fmt::format("the program was killed by signal {}", status->signal));
  if (rc != 0 && !status->signaled && status->code == 0) return rc;
  exit_like(*status);
}

namespace {

std::atomic<bool> g_interrupted{false};
void on_interrupt(int) { g_interrupted = true; }

struct AttachArgs {
  pid_t pid = 0;
  int64_t duration_ns = 0;  // 0: until Ctrl-C or the process exits
  std::string output = "callprof.data";
  bool quiet = false;
  std::string mode = "sample";
  SamplingArgs sampling;
  SyscallArgs syscalls;
  ProbeArgs probes;
};

}  // namespace

void observe_attached(PerfSession& session, SyscallTracing* tracing, SampleCollector& collector, RecordSink& sink,
                      int64_t duration_ns) {
  struct sigaction sa{}, old_int{}, old_term{};
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  const auto start = std::chrono::steady_clock::now();
  drain(session, tracing, collector, sink, [&] { return g_interrupted || (duration_ns > 0 && since(start) >= duration_ns); });
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
}

namespace {

int attach(AttachArgs a) {
  if (Status out = check_output(a.output, ""); !out) return fail(out.error().message);
  if (a.mode == "probe") return attach_probed({a.pid, a.duration_ns, a.output, a.quiet, a.sampling, a.syscalls, a.probes});
  if (a.mode == "syscall") {
    a.sampling.frequency = 0;
    if (!a.syscalls.enabled()) a.syscalls.selection = "all";
  }
  std::unique_ptr<SyscallTracing> tracing;
  if (a.syscalls.enabled()) {
    auto t = SyscallTracing::open(a.syscalls, a.sampling.children);
    if (!t) return fail(t.error().message);
    tracing = std::move(*t);
  }
  auto session = PerfSession::attach(a.pid, session_options(a.sampling));
  if (!session) return fail(session.error().message);
  if (tracing)
    if (auto st = tracing->add_process(a.pid); !st) return fail(st.error().message);
  SampleCollector collector(unwind_method(a.sampling));
  configure(collector, a.sampling, a.mode == "syscall");
  collector.add_initial(session->initial_threads(), session->initial_mappings());
  if (!a.quiet)
    note(fmt::format("attached to {} ({} threads) at {} Hz; {}", a.pid, session->initial_threads().size(),
                     a.sampling.frequency,
                     a.duration_ns > 0 ? fmt::format("for {} s", double(a.duration_ns) / 1e9) : std::string("Ctrl-C to stop")));
  const auto start = std::chrono::steady_clock::now();
  observe_attached(*session, tracing.get(), collector, collector, a.duration_ns);
  std::string command = "pid " + std::to_string(a.pid);
  for (const auto& t : session->initial_threads())
    if (t.tid == uint32_t(a.pid) && !t.comm.empty()) command += " (" + t.comm + ")";
  return write_sampled(collector, *session, a.sampling, Output{a.output, command, a.quiet, tracing.get()}, since(start));
}

}  // namespace

Run add_attach(CLI::App& app) {
  auto args = std::make_shared<AttachArgs>();
  add_count_option(app, "pid", args->pid, "The process to sample", 1, INT32_MAX)->required();
  add_seconds_option(app, "-d,--duration", args->duration_ns,
                     "Seconds to sample (default: until Ctrl-C or the process exits)", false);
  app.add_option("-o,--output", args->output, "Profile file to write")->capture_default_str();
  app.add_flag("-q,--quiet", args->quiet, "Print nothing of our own (errors excepted)");
  app.add_option("--mode", args->mode,
                 "sample | syscall (system calls only; --syscalls defaults to all) | probe (uprobes on --probe)")
      ->capture_default_str()->check(CLI::IsMember({"sample", "syscall", "probe"}));
  add_sampling_options(app, args->sampling);
  add_syscall_options(app, args->syscalls);
  add_probe_options(app, args->probes);
  app.footer("Example: callprof attach 1234 --duration 10 --call-graph dwarf --syscalls write,read");
  return [args]() { return attach(*args); };
}

}  // namespace callprof::cli

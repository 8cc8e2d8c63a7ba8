#include "record/stack_source.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/transform/attach_syscalls.h"
#include "target/process_check.h"

namespace callprof::record {
namespace {

using perf::UnwindMode;
using stacks::SampleCollector;

perf::SamplingOptions perf_options(const SamplingArgs& a) {
  perf::SamplingOptions o;
  o.frequency_hz = a.frequency;
  o.event = a.event;
  o.unwind = a.call_graph.value_or(UnwindMode::FramePointers);
  o.stack_bytes = a.stack_bytes & ~7u;
  o.kernel_stacks = !a.no_kernel;
  o.off_cpu = a.off_cpu;
  o.follow_children = a.children;
  return o;
}

// Exact mode with --syscalls or -F: no samples, only the records that say where code is
// mapped (for the calls' stacks); exact mode follows children, so this does too.
perf::SamplingOptions side_band_options() {
  perf::SamplingOptions o;
  o.frequency_hz = 0;
  o.follow_children = true;
  return o;
}

// How the entry stacks of system calls or probe hits were unwound (the frame-rule walk, or
// libdwfl where a rule is not one of its kinds) and what processing them cost.
std::string entry_stacks_note(const SampleCollector::Counts& c) {
  return fmt::format(
      "processing: {:.1f} ms for the entry stacks ({} walked by frame rules, {} unwound by libdwfl), "
      "{:.1f} ms symbolizing and building",
      double(c.unwind_ns) / 1e6, c.syscall_fast_walks, c.syscall_unwinds, double(c.build_ns) / 1e6);
}

UnwindMode unwind_method(const RecordArgs& args, Mode mode) {
  if (mode == Mode::Exact)  // the system calls' entry stacks; attached, only samples (no stacks)
    return args.attach() ? UnwindMode::FramePointers : UnwindMode::Dwarf;
  // Probe hits carry registers and stack.
  return mode == Mode::Probe ? UnwindMode::Dwarf : args.sampling.call_graph.value_or(UnwindMode::FramePointers);
}

}  // namespace

StackSource::StackSource(const RecordArgs& args, Mode mode, Reporter& reporter, std::string unwind_reason)
    : args_(args),
      mode_(mode),
      reporter_(reporter),
      unwind_reason_(std::move(unwind_reason)),
      collector_(std::make_unique<SampleCollector>(unwind_method(args, mode))) {
  if (mode == Mode::Exact) return;
  const SamplingArgs& s = args.sampling;
  collector_->set_timeline_events(args.timeline ? args.timeline_events : 0);
  collector_->set_inlined_frames(!s.no_inline);
  collector_->set_syscall_time_is_wall(mode == Mode::Syscall);
  if (s.event != perf::SampleEvent::CpuClock && s.frequency > 0)
    collector_->set_sample_weight_ns(1'000'000'000 / s.frequency);
}

perf::SamplingOptions StackSource::options() const {
  return mode_ == Mode::Exact ? side_band_options() : perf_options(args_.sampling);
}

void StackSource::use(perf::PerfSession session) { perf_.emplace(std::move(session)); }

void StackSource::contribute(Assembly& a) {
  if (a.profile)
    attach_to_exact(a);
  else
    build(a);
}

// The system calls no exact-mode caller claimed (made before a thread's first
// instrumented call, or by a program without hooks) as a profile of their own, hung into
// the exact trees by the frames' identity.
void StackSource::attach_to_exact(Assembly& a) {
  if (!args_.syscalls.enabled()) return;
  std::vector<std::string> warnings;
  Profile traced = collector_->build(warnings);
  for (const auto& w : warnings) reporter_.warn(w);
  std::erase_if(traced.threads, [&](const Thread& t) {  // calls it made before it muted itself
    return std::find(a.runtime_tids.begin(), a.runtime_tids.end(), t.tid) != a.runtime_tids.end();
  });
  attach_syscalls(*a.profile, traced);
}

void StackSource::build(Assembly& a) {
  std::vector<std::string> warnings;
  Profile p = collector_->build(warnings);
  for (const auto& w : warnings) reporter_.warn(w);
  if (args_.attach())  // the collector knows exits it saw; a thread that outlived the recording is still running
    for (Thread& t : p.threads) t.finished = t.finished && !thread_alive(pid_t(t.pid), pid_t(t.tid));
  if (const uint64_t foreign = perf_->stats().foreign_records; foreign > 0 && !args_.sampling.children) {
    p.meta.warnings.push_back(
        fmt::format("the program started other processes, which were not recorded ({} of "
                    "their records dropped): --children follows them",
                    foreign));
    reporter_.warn(p.meta.warnings.back());
  }
  if (mode_ == Mode::Sample || (mode_ == Mode::Probe && args_.sampling.frequency > 0)) stamp_sampling(p);
  a.profile = std::move(p);
}

void StackSource::stamp_sampling(Profile& p) const {
  const auto& c = collector_->counts();
  SamplingFacts& x = p.meta.sampling.emplace();
  x.frequency_hz = args_.sampling.frequency;
  x.event = to_string(args_.sampling.event);
  x.unwind = mode_ == Mode::Probe || args_.sampling.call_graph == UnwindMode::Dwarf ? Unwinding::Dwarf
                                                                                    : Unwinding::FramePointers;
  x.unwind_reason = unwind_reason_;
  x.samples = c.samples;
  x.off_cpu_samples = c.off_cpu_samples;
  x.incomplete_stacks = c.incomplete_stacks;
  x.lost_records = perf_->stats().decode.lost_records;
  x.lost_samples = perf_->stats().decode.lost_samples;
  x.truncated_stacks = c.truncated_stacks;
  x.inlined_frames = !args_.sampling.no_inline;
  if (c.samples + c.off_cpu_samples == 0) {
    p.meta.warnings.push_back(args_.attach()
                                  ? "no samples were taken (did the process run during the recording?)"
                                  : "no samples were taken (did the program run long enough to be sampled?)");
    reporter_.warn(p.meta.warnings.back());
  }
}

std::string StackSource::written(const Profile& p, const std::string& path, bool) const {
  const auto& c = collector_->counts();
  const char* s = p.threads.size() == 1 ? "" : "s";
  if (mode_ == Mode::Syscall) {
    const uint64_t lost = p.meta.syscalls ? p.meta.syscalls->lost_events : 0;
    return fmt::format("wrote {}: {} system calls on {} paths, {} lost, {} thread{}", path, c.syscalls, c.syscall_paths,
                       lost, p.threads.size(), s);
  }
  if (mode_ != Mode::Sample) return "";
  const auto& decode = perf_->stats().decode;
  const uint64_t all = c.samples + c.off_cpu_samples;
  return fmt::format("wrote {}: {} samples ({} off-CPU), {} lost, {} thread{}{}", path, c.samples, c.off_cpu_samples,
                     decode.lost_records + decode.lost_samples, p.threads.size(), s,
                     c.truncated_stacks
                         ? fmt::format("; {} stacks ({:.1f} %) truncated", c.truncated_stacks,
                                       100.0 * double(c.truncated_stacks) / double(std::max<uint64_t>(all, 1)))
                         : std::string());
}

std::vector<std::string> StackSource::details() const {
  const auto& c = collector_->counts();
  if (mode_ == Mode::Syscall || mode_ == Mode::Probe) return {entry_stacks_note(c)};
  if (mode_ != Mode::Sample) return {};
  const uint64_t all = c.samples + c.off_cpu_samples;
  return {fmt::format("processing: unwinding {:.1f} ms, symbolizing and building {:.1f} ms ({:.0f} samples/s)",
                      double(c.unwind_ns) / 1e6, double(c.build_ns) / 1e6,
                      double(all) * 1e9 / double(std::max<uint64_t>(1, c.unwind_ns + c.build_ns)))};
}

}  // namespace callprof::record

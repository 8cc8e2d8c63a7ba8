// Merged metadata: shared values kept, differing ones joined or "mixed", counts added.
#include "model/transform/merge_metadata.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>

namespace callprof {
namespace {

// "a" when every input says "a"; else the distinct values, sorted, joined. A value that
// was joined by an earlier merge is split first, so grouping does not change the result.
template <typename Get>
std::string common_or_joined(const std::vector<Metadata>& ms, Get get, std::string_view separator) {
  std::set<std::string> values;
  for (const Metadata& m : ms) {
    const std::string v = get(m);
    for (size_t at = 0;;) {
      const size_t end = v.find(separator, at);
      values.insert(v.substr(at, end == std::string::npos ? end : end - at));
      if (end == std::string::npos) break;
      at = end + separator.size();
    }
  }
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : std::string(separator)) + v;
  return out;
}

// Record options that differ between inputs are not kept: the options say "mixed".
void add_exact(std::optional<ExactFacts>& into, const ExactFacts& x) {
  if (!into) {
    into = x;
    return;
  }
  auto options = [](const ExactFacts& e) {
    return std::tie(e.offcpu, e.alloc, e.faults, e.libcalls, e.include, e.exclude, e.include_module, e.exclude_module,
                    e.checkpoint, e.max_depth, e.min_duration, e.max_nodes, e.ordered_clock, e.auto_fold);
  };
  const uint64_t unmatched = into->unmatched_exits + x.unmatched_exits;
  const uint64_t open = into->frames_open_at_attach + x.frames_open_at_attach;
  const uint64_t open_threads = into->threads_open_at_attach + x.threads_open_at_attach;
  const uint64_t without_hooks = into->threads_without_hooks + x.threads_without_hooks;
  const bool attached = into->attached || x.attached;
  const std::string calibration = into->calibration == x.calibration ? x.calibration : "";
  std::optional<double> change = into->calibration_change_at_exit;
  if (x.calibration_change_at_exit && (!change || std::abs(*x.calibration_change_at_exit) > std::abs(*change)))
    change = x.calibration_change_at_exit;
  if (options(*into) != options(x)) {
    *into = ExactFacts{};
    into->include = "mixed";
  }
  into->unmatched_exits = unmatched;
  into->calibration = calibration;
  into->calibration_change_at_exit = change;
  into->attached = attached;
  into->frames_open_at_attach = open;
  into->threads_open_at_attach = open_threads;
  into->threads_without_hooks = without_hooks;
}

void add_sampling(std::optional<SamplingFacts>& into, const SamplingFacts& s) {
  if (!into) {
    into = s;
    return;
  }
  if (into->event != s.event) into->event = "mixed";
  if (into->unwind != s.unwind) into->unwind = Unwinding::Mixed;
  if (into->frequency_hz != s.frequency_hz) into->frequency_hz = 0;  // 0: differs between inputs
  into->samples += s.samples;
  into->off_cpu_samples += s.off_cpu_samples;
  into->incomplete_stacks += s.incomplete_stacks;
  into->lost_records += s.lost_records;
  into->lost_samples += s.lost_samples;
  into->truncated_stacks += s.truncated_stacks;
  into->runtime_samples += s.runtime_samples;
  into->unplaced_samples += s.unplaced_samples;
  into->inlined_frames = into->inlined_frames && s.inlined_frames;
}

void add_syscalls(std::optional<SyscallFacts>& into, const SyscallFacts& s) {
  if (!into) {
    into = s;
    return;
  }
  if (into->selection != s.selection) into->selection = "mixed";
  if (into->stacks != s.stacks) into->stacks = "mixed";
  into->events += s.events;
  into->lost_events += s.lost_events;
  into->stack_failures += s.stack_failures;
  into->unrecorded += s.unrecorded;
  into->unpaired_exits += s.unpaired_exits;
  into->exact_callers += s.exact_callers;
  into->exact_callers_unplaced += s.exact_callers_unplaced;
}

}  // namespace

Metadata merged_metadata(const std::vector<Metadata>& ms) {
  Metadata m;
  m.command = common_or_joined(
      ms, [](const Metadata& x) { return x.command; }, " | ");
  m.mode = RecordingModes::from_text(common_or_joined(
      ms, [](const Metadata& x) { return x.mode.text(); }, "+"));
  m.hostname = common_or_joined(
      ms, [](const Metadata& x) { return x.hostname; }, ",");
  m.clock = common_or_joined(
      ms, [](const Metadata& x) { return x.clock; }, ",");
  m.callprof_version = common_or_joined(
      ms, [](const Metadata& x) { return x.callprof_version; }, ",");
  m.start_realtime_ns = ms.front().start_realtime_ns;
  for (const Metadata& in : ms) {
    m.start_realtime_ns = std::min(m.start_realtime_ns, in.start_realtime_ns);
    m.duration_ns += in.duration_ns;  // the time recorded, over all inputs
    m.compensated = in.compensated;
    m.snapshot = m.snapshot || in.snapshot;
    if (in.exact) add_exact(m.exact, *in.exact);
    if (in.sampling) add_sampling(m.sampling, *in.sampling);
    if (in.syscalls) add_syscalls(m.syscalls, *in.syscalls);
    for (const auto& [k, v] : in.extra) m.extra.insert({k, v});  // the smallest value wins below
  }
  for (const Metadata& in : ms)
    for (const auto& [k, v] : in.extra) m.extra[k] = std::min(m.extra[k], v);
  size_t inputs = 0;  // a merged input counts as the profiles it was made of
  for (const Metadata& in : ms) {
    auto it = in.extra.find("merged_profiles");
    inputs += it == in.extra.end() ? 1 : std::max<size_t>(1, std::strtoull(it->second.c_str(), nullptr, 10));
  }
  m.extra["merged_profiles"] = std::to_string(inputs);
  return m;
}

}  // namespace callprof

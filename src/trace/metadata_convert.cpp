// Typed recording facts in the file, and the legacy key/value form they replaced.
#include "trace/metadata_convert.h"

#include <charconv>

namespace callprof::trace {
namespace {

void put_exact(const ExactFacts& x, file::ExactFacts* out) {
  out->set_offcpu_off(!x.offcpu);
  out->set_alloc(x.alloc);
  out->set_faults(x.faults);
  out->set_libcalls(x.libcalls);
  out->set_ordered_clock(x.ordered_clock);
  out->set_auto_fold(x.auto_fold);
  out->set_include(x.include);
  out->set_exclude(x.exclude);
  out->set_include_module(x.include_module);
  out->set_exclude_module(x.exclude_module);
  out->set_checkpoint(x.checkpoint);
  out->set_max_depth(x.max_depth);
  out->set_min_duration(x.min_duration);
  out->set_max_nodes(x.max_nodes);
  out->set_unmatched_exits(x.unmatched_exits);
  out->set_attached(x.attached);
  out->set_frames_open_at_attach(x.frames_open_at_attach);
  out->set_threads_open_at_attach(x.threads_open_at_attach);
  out->set_threads_without_hooks(x.threads_without_hooks);
  out->set_calibration(x.calibration);
  if (x.calibration_change_at_exit) out->set_calibration_change_at_exit(*x.calibration_change_at_exit);
}

ExactFacts take_exact(const file::ExactFacts& in) {
  return ExactFacts{.offcpu = !in.offcpu_off(),
                    .alloc = in.alloc(),
                    .faults = in.faults(),
                    .libcalls = in.libcalls(),
                    .ordered_clock = in.ordered_clock(),
                    .auto_fold = in.auto_fold(),
                    .include = in.include(),
                    .exclude = in.exclude(),
                    .include_module = in.include_module(),
                    .exclude_module = in.exclude_module(),
                    .checkpoint = in.checkpoint(),
                    .max_depth = in.max_depth(),
                    .min_duration = in.min_duration(),
                    .max_nodes = in.max_nodes(),
                    .unmatched_exits = in.unmatched_exits(),
                    .calibration = in.calibration(),
                    .calibration_change_at_exit = in.has_calibration_change_at_exit()
                                                      ? std::optional<double>(in.calibration_change_at_exit())
                                                      : std::nullopt,
                    .attached = in.attached(),
                    .frames_open_at_attach = in.frames_open_at_attach(),
                    .threads_open_at_attach = in.threads_open_at_attach(),
                    .threads_without_hooks = in.threads_without_hooks()};
}

void put_sampling(const SamplingFacts& x, file::SamplingFacts* out) {
  out->set_event(x.event);
  out->set_frequency_hz(x.frequency_hz);
  out->set_unwind(std::string(unwinding_name(x.unwind)));
  out->set_samples(x.samples);
  out->set_off_cpu_samples(x.off_cpu_samples);
  out->set_incomplete_stacks(x.incomplete_stacks);
  out->set_lost_records(x.lost_records);
  out->set_lost_samples(x.lost_samples);
  out->set_unwind_reason(x.unwind_reason);
  out->set_truncated_stacks(x.truncated_stacks);
  out->set_no_inline(!x.inlined_frames);
  out->set_runtime_samples(x.runtime_samples);
  out->set_unplaced_samples(x.unplaced_samples);
}

SamplingFacts take_sampling(const file::SamplingFacts& in) {
  return SamplingFacts{.event = in.event(),
                       .frequency_hz = in.frequency_hz(),
                       .unwind = parse_unwinding(in.unwind()),
                       .unwind_reason = in.unwind_reason(),
                       .samples = in.samples(),
                       .off_cpu_samples = in.off_cpu_samples(),
                       .incomplete_stacks = in.incomplete_stacks(),
                       .lost_records = in.lost_records(),
                       .lost_samples = in.lost_samples(),
                       .truncated_stacks = in.truncated_stacks(),
                       .inlined_frames = !in.no_inline(),
                       .runtime_samples = in.runtime_samples(),
                       .unplaced_samples = in.unplaced_samples()};
}

void put_syscalls(const SyscallFacts& x, file::SyscallFacts* out) {
  out->set_selection(x.selection);
  out->set_stacks(x.stacks);
  out->set_events(x.events);
  out->set_lost_events(x.lost_events);
  out->set_stack_failures(x.stack_failures);
  out->set_unrecorded(x.unrecorded);
  out->set_unpaired_exits(x.unpaired_exits);
  out->set_exact_callers(x.exact_callers);
  out->set_exact_callers_unplaced(x.exact_callers_unplaced);
}

SyscallFacts take_syscalls(const file::SyscallFacts& in) {
  return SyscallFacts{.selection = in.selection(),
                      .stacks = in.stacks(),
                      .events = in.events(),
                      .lost_events = in.lost_events(),
                      .stack_failures = in.stack_failures(),
                      .unrecorded = in.unrecorded(),
                      .unpaired_exits = in.unpaired_exits(),
                      .exact_callers = in.exact_callers(),
                      .exact_callers_unplaced = in.exact_callers_unplaced()};
}

void put_probes(const ProbeFacts& x, file::ProbeFacts* out) {
  out->set_functions(x.functions);
  out->set_modules(x.modules);
  out->set_probed(x.probed);
  out->set_sites(x.sites);
  out->set_refused_sites(x.refused_sites);
  out->set_entries(x.entries);
  out->set_exits(x.exits);
  out->set_unwound(x.unwound);
  out->set_unfinished(x.unfinished);
  out->set_unmatched_exits(x.unmatched_exits);
  out->set_cost_per_hit_ns(x.cost_per_hit_ns);
  out->set_lost(x.lost);
  out->set_budget_percent(x.budget_percent);
  for (const StoppedProbe& s : x.stopped) {
    file::StoppedProbe* o = out->add_stopped();
    o->set_function(s.function);
    o->set_at_ns(s.at_ns);
    o->set_calls(s.calls);
    o->set_added_percent(s.added_percent);
  }
  out->set_cut(x.cut);
  out->set_unmeasurable_calls(x.unmeasurable_calls);
  for (const std::string& f : x.unmeasurable) out->add_unmeasurable(f);
  out->set_truncated_calls(x.truncated_calls);
}

ProbeFacts take_probes(const file::ProbeFacts& in) {
  std::vector<StoppedProbe> stopped;
  for (const file::StoppedProbe& s : in.stopped())
    stopped.push_back(
        {.function = s.function(), .at_ns = s.at_ns(), .calls = s.calls(), .added_percent = s.added_percent()});
  return ProbeFacts{.functions = in.functions(),
                    .modules = in.modules(),
                    .probed = in.probed(),
                    .sites = in.sites(),
                    .refused_sites = in.refused_sites(),
                    .entries = in.entries(),
                    .exits = in.exits(),
                    .unwound = in.unwound(),
                    .unfinished = in.unfinished(),
                    .unmatched_exits = in.unmatched_exits(),
                    .cost_per_hit_ns = in.cost_per_hit_ns(),
                    .lost = in.lost(),
                    .budget_percent = in.budget_percent(),
                    .stopped = stopped,
                    .cut = in.cut(),
                    .unmeasurable_calls = in.unmeasurable_calls(),
                    .unmeasurable = {in.unmeasurable().begin(), in.unmeasurable().end()},
                    .truncated_calls = in.truncated_calls()};
}

// Files before the typed facts kept them as strings in `extra`; a key that is not a
// number reads as 0 (it was only ever shown, never computed with).
class LegacyKeys {
 public:
  explicit LegacyKeys(std::map<std::string, std::string>& extra) : extra_(extra) {}
  bool has(const char* key) const { return extra_.count(key) > 0; }
  std::string text(const char* key) {
    auto it = extra_.find(key);
    if (it == extra_.end()) return "";
    std::string v = std::move(it->second);
    extra_.erase(it);
    return v;
  }
  template <typename T>
  T number(const char* key) {
    const std::string v = text(key);
    T n = 0;
    std::from_chars(v.data(), v.data() + v.size(), n);
    return n;
  }

 private:
  std::map<std::string, std::string>& extra_;
};

void migrate_legacy(Metadata& meta) {
  LegacyKeys k(meta.extra);
  meta.compensated = meta.compensated || k.text("compensated") == "yes";
  meta.snapshot = meta.snapshot || !k.text("snapshot").empty();
  if (!meta.sampling && k.has("frequency_hz")) {
    SamplingFacts& s = meta.sampling.emplace();
    s.event = k.has("event") ? k.text("event") : s.event;
    s.frequency_hz = k.number<uint64_t>("frequency_hz");
    s.unwind = parse_unwinding(k.text("unwind"));
    s.samples = k.number<uint64_t>("samples");
    s.off_cpu_samples = k.number<uint64_t>("off_cpu_samples");
    s.incomplete_stacks = k.number<uint64_t>("incomplete_stacks");
    s.lost_records = k.number<uint64_t>("lost_records");
    s.lost_samples = k.number<uint64_t>("lost_samples");
  }
  if (!meta.syscalls && k.has("syscall_events")) {
    SyscallFacts& s = meta.syscalls.emplace();
    s.selection = k.text("syscalls");
    s.stacks = k.text("syscall_stacks");
    s.events = k.number<uint64_t>("syscall_events");
    s.lost_events = k.number<uint64_t>("syscall_lost_events");
    s.stack_failures = k.number<uint64_t>("syscall_stack_failures");
    s.unrecorded = k.number<uint64_t>("syscall_unrecorded");
    s.unpaired_exits = k.number<uint64_t>("syscall_unpaired_exits");
  }
  if (!meta.exact && k.has("offcpu")) {
    ExactFacts& x = meta.exact.emplace();
    x.offcpu = k.text("offcpu") != "off";
    x.alloc = !k.text("alloc").empty();
    x.faults = !k.text("faults").empty();
    x.libcalls = !k.text("libcalls").empty();
    x.include = k.text("include");
    x.exclude = k.text("exclude");
    x.include_module = k.text("include_module");
    x.exclude_module = k.text("exclude_module");
    x.checkpoint = k.text("checkpoint");
    x.max_depth = k.number<uint32_t>("max_depth");
    x.min_duration = k.text("min_duration");
    x.max_nodes = k.number<uint64_t>("max_nodes");
    x.unmatched_exits = k.number<uint64_t>("unmatched_exits");
  }
}

}  // namespace

void put_metadata(const Metadata& meta, file::Metadata* out) {
  out->set_command(meta.command);
  out->set_mode(meta.mode.text());
  out->set_hostname(meta.hostname);
  out->set_clock(meta.clock);
  out->set_start_realtime_ns(meta.start_realtime_ns);
  out->set_duration_ns(meta.duration_ns);
  out->set_callprof_version(meta.callprof_version);
  for (const auto& [key, value] : meta.extra) {
    file::ExtraEntry* entry = out->add_extra();
    entry->set_key(key);
    entry->set_value(value);
  }
  if (meta.exact) put_exact(*meta.exact, out->mutable_exact());
  if (meta.sampling) put_sampling(*meta.sampling, out->mutable_sampling());
  if (meta.syscalls) put_syscalls(*meta.syscalls, out->mutable_syscalls());
  if (meta.probes) put_probes(*meta.probes, out->mutable_probes());
  out->set_compensated(meta.compensated);
  out->set_snapshot(meta.snapshot);
  for (const std::string& w : meta.warnings) out->add_warnings(w);
  if (meta.timeline) {
    out->mutable_timeline()->set_min_duration_ns(meta.timeline->min_duration_ns);
    out->mutable_timeline()->set_capacity(meta.timeline->capacity);
  }
}

Metadata take_metadata(const file::Metadata& in) {
  Metadata meta;
  meta.command = in.command();
  meta.mode = RecordingModes::from_text(in.mode());
  meta.hostname = in.hostname();
  meta.clock = in.clock();
  meta.start_realtime_ns = in.start_realtime_ns();
  meta.duration_ns = in.duration_ns();
  meta.callprof_version = in.callprof_version();
  for (const file::ExtraEntry& entry : in.extra()) meta.extra[entry.key()] = entry.value();
  if (in.has_exact()) meta.exact = take_exact(in.exact());
  if (in.has_sampling()) meta.sampling = take_sampling(in.sampling());
  if (in.has_syscalls()) meta.syscalls = take_syscalls(in.syscalls());
  if (in.has_probes()) meta.probes = take_probes(in.probes());
  meta.compensated = in.compensated();
  meta.snapshot = in.snapshot();
  meta.warnings.assign(in.warnings().begin(), in.warnings().end());
  if (in.has_timeline())
    meta.timeline =
        TimelineFacts{.min_duration_ns = in.timeline().min_duration_ns(), .capacity = in.timeline().capacity()};
  migrate_legacy(meta);
  return meta;
}

file::FunctionKind to_proto(FunctionKind kind) {
  return file::FunctionKind(int(kind) + int(file::FUNCTION_KIND_NORMAL));
}

FunctionKind take_kind(file::FunctionKind kind, std::string_view name) {
  if (kind == file::FUNCTION_KIND_UNSPECIFIED) {
    if (name.starts_with(kSyscallLeafPrefix)) return FunctionKind::Syscall;
    if (name == "[pruned]") return FunctionKind::Pruned;
    if (name == "[truncated]") return FunctionKind::Truncated;
    if (name == "[unhooked calls]") return FunctionKind::Unhooked;
    if (name == "[kernel]") return FunctionKind::Kernel;
    if (name.starts_with("[thread] ") || (name.starts_with("[") && name.find(" threads] ") != name.npos))
      return FunctionKind::ThreadGroup;
    return FunctionKind::Normal;
  }
  const int k = int(kind) - int(file::FUNCTION_KIND_NORMAL);
  return k >= 0 && size_t(k) < kFunctionKindCount ? FunctionKind(k) : FunctionKind::Normal;
}

}  // namespace callprof::trace

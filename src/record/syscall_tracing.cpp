#include "record/syscall_tracing.h"

#include <algorithm>
#include <cstring>

#include "collect/syscalls/syscall_catalog.h"
#include "collect/syscalls/syscall_tracer.h"

namespace callprof::record {
namespace {

using namespace syscalls;

// Hands the tracer's events to the collector as views: nothing is copied per event.
class Bridge : public EventHandler {
 public:
  Bridge(const SyscallTracer& tracer, stacks::SampleCollector& collector, ExactCallerCalls& exact_callers,
         ExactSamples& exact_samples, std::vector<uint64_t>& chain, TracingWindow& window)
      : tracer_(tracer),
        collector_(collector),
        exact_callers_(exact_callers),
        exact_samples_(exact_samples),
        chain_(chain),
        stacks_(tracer.options().stacks != StackMode::None),
        window_(window) {}

  void on_syscall(const SyscallEvent& e) override {
    if (!window_.holds(e.start_ns)) {
      ++window_.calls_outside;
      return;
    }
    const uint64_t duration_ns = e.end_ns > e.start_ns ? e.end_ns - e.start_ns : 0;
    // -4095..-1 are errors on x86-64; mmap and friends return addresses above that.
    const int error = e.ret < 0 && e.ret >= -4095 ? int(-e.ret) : 0;
    // Attached in exact mode no perf session knows the mappings to unwind with: a call
    // without its caller was made before its thread's first hook (exact_callers.h).
    if (e.context || window_.exact_attached)
      return exact_callers_.add(e, e.context.value_or(ExactCaller{}), syscall_name(e.nr), duration_ns, error);
    perf::SyscallSample call;
    call.pid = e.pid;
    call.tid = e.tid;
    call.time_ns = e.start_ns;
    call.ip = e.ip;
    call.sp = e.sp;
    call.bp = e.bp;
    chain_.clear();
    if (stacks_) {  // without stacks only the call counts, not where the wrapper was
      chain_.push_back(e.ip);
      chain_.insert(chain_.end(), e.user_frames.begin(), e.user_frames.end());
    }
    call.user_chain = chain_;
    call.kernel_chain = tracer_.kernel_stack(e.kernel_stack);
    call.window = e.window;
    call.nr = e.nr;
    call.name = syscall_name(e.nr);
    call.duration_ns = duration_ns;
    call.error = error;
    collector_.on_syscall(call);
  }
  // Forks, execs and exits come from the perf session's side-band records; an exec starts
  // node ids again for the calls with exact callers.
  void on_process(const ProcessEvent& e) override {
    if (e.kind != ProcessEvent::Exec) return;
    exact_callers_.exec(e.pid);
    exact_samples_.exec(e.pid);
  }
  void on_sample(const SampleEvent& e) override {
    if (window_.holds(e.time_ns)) exact_samples_.add(e);
  }

 private:
  const SyscallTracer& tracer_;
  stacks::SampleCollector& collector_;
  ExactCallerCalls& exact_callers_;
  ExactSamples& exact_samples_;
  std::vector<uint64_t>& chain_;
  bool stacks_;
  TracingWindow& window_;
};

StackMode stack_mode(const std::string& name) {
  return name == "none" ? StackMode::None : name == "full" ? StackMode::Full : StackMode::User;
}

}  // namespace

SyscallTracing::SyscallTracing(std::unique_ptr<SyscallTracer> tracer, const SyscallArgs& args,
                               stacks::SampleCollector& collector, uint32_t sample_hz, Reporter& reporter)
    : tracer_(std::move(tracer)), collector_(collector), args_(args), sample_hz_(sample_hz), reporter_(reporter) {}
SyscallTracing::~SyscallTracing() = default;

Result<std::unique_ptr<SyscallTracing>> SyscallTracing::open(const SyscallArgs& args, bool follow_children,
                                                             stacks::SampleCollector& collector, uint32_t sample_hz,
                                                             Reporter& reporter) {
  TracerOptions o;
  if (args.enabled()) {
    auto selected = parse_syscall_selection(args.selection);
    if (!selected) return make_error("--syscalls: " + selected.error().message);
    o.selected = *selected;
  }
  o.sample_hz = sample_hz;
  o.stacks = stack_mode(args.stacks);
  o.window_bytes = o.stacks == StackMode::None ? 0 : args.window_bytes & ~7u;
  o.follow_children = follow_children;
  auto tracer = SyscallTracer::open(o);
  if (!tracer) return tracer.error();
  return std::unique_ptr<SyscallTracing>(new SyscallTracing(std::move(*tracer), args, collector, sample_hz, reporter));
}

Status SyscallTracing::add_process(pid_t pid) { return tracer_->add_process(uint32_t(pid)); }

void SyscallTracing::poll() {
  Bridge bridge(*tracer_, collector_, exact_callers_, exact_samples_, chain_, window_);
  tracer_->poll(bridge, 0);
}

void SyscallTracing::finish() {
  Bridge bridge(*tracer_, collector_, exact_callers_, exact_samples_, chain_, window_);
  tracer_->drain(bridge);
}

uint64_t SyscallTracing::lost_events() const { return tracer_->counts().lost_events; }

int SyscallTracing::wake_fd() const { return tracer_->ring_fd(); }

void SyscallTracing::contribute(Assembly& a) {
  Profile& p = *a.profile;
  annotate(p.meta);
  if (sample_hz_ > 0) stamp_exact_samples(a);
  // Only exact-mode threads announce callers; elsewhere this adds nothing.
  if (args_.enabled()) exact_callers_.attach(p, a.thread_nodes);
}

// What the samples inside exact mode were and what became of them.
void SyscallTracing::stamp_exact_samples(Assembly& a) const {
  Metadata& meta = a.profile->meta;
  SamplingFacts& x = meta.sampling.emplace();
  x.frequency_hz = sample_hz_;
  x.unwind = Unwinding::ShadowStack;
  x.samples = exact_samples_.total();
  x.runtime_samples = exact_samples_.in_runtime() + a.node_samples.runtime;
  x.unplaced_samples = a.node_samples.unplaced;
  x.lost_records = lost_events();
  if (x.samples == 0) {
    meta.warnings.push_back("no samples were taken (did the program run long enough to be sampled?)");
    reporter_.warn(meta.warnings.back());
  }
}

void SyscallTracing::annotate(Metadata& meta) const {
  const TracerCounts c = tracer_->counts();
  if (!args_.enabled()) return;
  SyscallFacts& x = meta.syscalls.emplace();
  x.selection = args_.selection;
  x.stacks = args_.stacks;
  x.events = c.events - std::min(c.events, window_.calls_outside);  // the window's (attached)
  x.lost_events = c.lost_events;
  x.stack_failures = c.stack_failures + c.stack_collisions;
  x.unrecorded = c.pending_failures;
  x.unpaired_exits = c.unpaired_exits;
  // An announced shadow stack that could not be read: the call took the stack way.
  x.stack_failures += c.context_failures;
}

}  // namespace callprof::record

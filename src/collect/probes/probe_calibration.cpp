#include "collect/probes/probe_calibration.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "collect/probes/probe_sites.h"
#include "collect/sampling/perf_events.h"
#include "collect/sampling/perf_ring.h"
#include "collect/sampling/uprobe_definitions.h"

// Called by the calibration loop with its probes on: kept out of line and not folded away.
extern "C" __attribute__((noinline, used)) uint64_t callprof_probe_calibration_target(uint64_t x) {
  asm volatile("" : "+r"(x));
  return x + 1;
}

namespace callprof::probes {
namespace {

using namespace sampling;

class Events {
 public:
  ~Events() {
    ring_.unmap();
    for (int fd : fds_) close(fd);
  }
  Events() = default;
  Status open(const SamplingOptions& options, const ProbeFunction& f) {
    std::vector<UprobeSite> sites{{f.module, f.entry_offset}};
    for (uint64_t exit : f.exit_offsets) sites.push_back({f.module, exit});
    auto defined = UprobeDefinitions::define(sites);
    if (!defined) return defined.error();
    definitions_ = std::move(*defined);
    for (uint64_t id : definitions_.ids()) {
      if (id == 0) return make_error("cannot measure the cost of a probe: the kernel refused its uprobe");
      perf_event_attr attr = make_uprobe_attr(options, id, false);
      attr.inherit = 0;  // this thread only, so the ring can be mapped per task
      auto fd = open_event(attr, 0, -1, "cannot measure the cost of a probe");
      if (!fd) return fd.error();
      fds_.push_back(*fd);
      if (fds_.size() == 1) {
        auto ring = PerfRing::map(*fd, 1 << 20);
        if (!ring) return ring.error();
        ring_ = std::move(*ring);
      } else if (ioctl(*fd, PERF_EVENT_IOC_SET_OUTPUT, fds_.front()) != 0) {
        return make_error("cannot measure the cost of a probe: PERF_EVENT_IOC_SET_OUTPUT failed");
      }
    }
    return Ok{};
  }
  void enable(bool on) {
    for (int fd : fds_) ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
  }
  void drain(const DecodeFormat& format) {
    RecordSink ignore;
    DecodeStats stats;
    ring_.drain(format, ignore, stats);
  }
  size_t sites() const { return fds_.size(); }

 private:
  UprobeDefinitions definitions_;  // declared first: removed after the events are closed
  std::vector<int> fds_;
  PerfRing ring_;
};

// The fastest of several batches: other work on the machine only ever adds time.
uint64_t best_batch_ns(Events& events, const DecodeFormat& format, int batches, int calls) {
  uint64_t best = UINT64_MAX, x = 0;
  for (int b = 0; b < batches; ++b) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) x = callprof_probe_calibration_target(x);
    auto ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    best = std::min(best, ns);
    events.drain(format);  // room for the next batch, outside the timing
  }
  return best;
}

}  // namespace

Result<uint64_t> measure_probe_cost_ns(const SamplingOptions& options) {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  auto pattern = Pattern::compile("^callprof_probe_calibration_target$", "calibration");
  if (!pattern) return pattern.error();
  auto found = find_probe_functions(self, *pattern);
  if (!found) return found.error();
  if (found->empty()) return make_error("cannot measure the cost of a probe: no calibration function in " + self);
  Events events;
  if (auto st = events.open(options, found->front()); !st) return st.error();
  const DecodeFormat format = decode_format(options);
  // A batch's hits must fit the 1 MiB ring: a lost record costs less than a written one.
  const size_t hit_bytes = options.unwind == UnwindMode::Dwarf ? options.stack_bytes + 1024 : 1024;
  const int calls = int(std::clamp<size_t>((1 << 20) / (2 * hit_bytes), 16, 400)), batches = 5;
  events.enable(false);
  const uint64_t bare = best_batch_ns(events, format, batches, calls);
  events.enable(true);
  const uint64_t probed = best_batch_ns(events, format, batches, calls);
  events.enable(false);
  const uint64_t hits = uint64_t(calls) * 2;  // an entry and one exit per call
  return probed > bare ? (probed - bare) / hits : 0;
}

}  // namespace callprof::probes

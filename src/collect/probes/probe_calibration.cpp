#include "collect/probes/probe_calibration.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "collect/probes/probe_collector.h"
#include "collect/probes/probe_sites.h"
#include "collect/sampling/perf_events.h"
#include "collect/sampling/perf_ring.h"
#include "collect/sampling/uprobe_definitions.h"

// Called by the calibration loop with its probes on, and its twin without any: kept out of
// line and not folded into one. (A disabled probe still traps: the bare batches must call
// code with no breakpoint at all.)
extern "C" __attribute__((noinline, used)) uint64_t callprof_probe_calibration_target(uint64_t x) {
  asm volatile("" : "+r"(x));
  return x + 1;
}
extern "C" __attribute__((noinline, used)) uint64_t callprof_probe_calibration_bare(uint64_t x) {
  asm volatile("" : "+r"(x));
  return x + 2;
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
    std::vector<ProbeSite> kinds;
    const std::vector<UprobeSite> sites = uprobe_sites({f}, kinds);
    auto defined = UprobeDefinitions::define(sites);
    if (!defined) return defined.error();
    definitions_ = std::move(*defined);
    for (size_t i = 0; i < sites.size(); ++i) {
      const uint64_t id = definitions_.ids()[i];
      if (id == 0) return make_error("cannot measure the cost of a probe: the kernel refused its uprobe");
      perf_event_attr attr = make_uprobe_attr(options, id, sites[i].needs_stack, false);
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

template <uint64_t (*Function)(uint64_t)>
uint64_t batch_ns(int calls) {
  uint64_t x = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) x = Function(x);
  asm volatile("" : "+r"(x));
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
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
  // Batches without and with the probes alternate, so that a burst of other work on the
  // machine falls on both; the median of their differences is the cost. Each batch's hits
  // must fit the 1 MiB ring (a lost record costs less than a written one).
  const size_t hit_bytes = options.unwind == UnwindMode::Dwarf ? options.stack_bytes + 1024 : 1024;
  const int calls = int(std::clamp<size_t>((1 << 20) / (2 * hit_bytes), 16, 64)), batches = 31;
  std::vector<int64_t> differences;
  events.enable(true);
  for (int b = 0; b < batches; ++b) {
    const uint64_t bare = batch_ns<callprof_probe_calibration_bare>(calls);
    const uint64_t probed = batch_ns<callprof_probe_calibration_target>(calls);
    events.drain(format);
    differences.push_back(int64_t(probed) - int64_t(bare));
  }
  std::nth_element(differences.begin(), differences.begin() + batches / 2, differences.end());
  const int64_t median = differences[batches / 2];
  if (median <= 0) return make_error("cannot measure the cost of a probe: the machine is too busy to tell");
  return uint64_t(median) / (uint64_t(calls) * 2);  // an entry and one exit per call
}

}  // namespace callprof::probes

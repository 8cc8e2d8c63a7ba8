#include "collect/probes/probe_calibration.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <unordered_map>
#include <vector>

#include "collect/perf/perf_events.h"
#include "collect/perf/perf_ring.h"
#include "collect/perf/uprobe_definitions.h"
#include "collect/probes/probe_collector.h"
#include "collect/probes/probe_sites.h"

// The calibration's functions, in assembly so that their probes land where intended (see
// probe_placement.h): `stepped` calls something (never, after its ret) and starts with an
// instruction the kernel single-steps, so it gets a single-stepped entry and exit;
// `leaf_stepped` is a leaf with such an entry (and a return probe); `leaf_emulated` a leaf
// starting with a push (emulated). `bare` does the same work without any probe (a disabled
// probe would still trap).
asm(R"(
        .text
        .globl callprof_probe_cal_stepped, callprof_probe_cal_leaf_stepped
        .globl callprof_probe_cal_leaf_emulated, callprof_probe_cal_bare
        .type callprof_probe_cal_stepped, @function
        .p2align 4
callprof_probe_cal_stepped:
        sub $8, %rsp
        lea 1(%rdi), %rax
        add $8, %rsp
        ret
        call callprof_probe_cal_bare
        .size callprof_probe_cal_stepped, .-callprof_probe_cal_stepped
        .type callprof_probe_cal_leaf_stepped, @function
        .p2align 4
callprof_probe_cal_leaf_stepped:
        sub $8, %rsp
        lea 1(%rdi), %rax
        add $8, %rsp
        ret
        .size callprof_probe_cal_leaf_stepped, .-callprof_probe_cal_leaf_stepped
        .type callprof_probe_cal_leaf_emulated, @function
        .p2align 4
callprof_probe_cal_leaf_emulated:
        push %rbx
        lea 1(%rdi), %rax
        pop %rbx
        ret
        .size callprof_probe_cal_leaf_emulated, .-callprof_probe_cal_leaf_emulated
        .type callprof_probe_cal_bare, @function
        .p2align 4
callprof_probe_cal_bare:
        sub $8, %rsp
        lea 1(%rdi), %rax
        add $8, %rsp
        ret
        .size callprof_probe_cal_bare, .-callprof_probe_cal_bare
)");
extern "C" uint64_t callprof_probe_cal_stepped(uint64_t), callprof_probe_cal_leaf_stepped(uint64_t),
    callprof_probe_cal_leaf_emulated(uint64_t), callprof_probe_cal_bare(uint64_t);

namespace callprof::probes {
namespace {

using namespace perf;

// Per calibration function, the time from each call's entry hit to its exit hit: the
// probes' time inside a call whose own code takes a nanosecond.
class InsideTimes : public RecordSink {
 public:
  std::unordered_map<uint64_t, ProbeSite> sites;  // by event id
  std::vector<std::vector<int64_t>> inside;       // by function
  void on_sample(Sample&& s) override {
    auto it = sites.find(s.id);
    if (it == sites.end()) return;
    const ProbeSite& site = it->second;
    if (site.function >= inside.size()) inside.resize(site.function + 1), entered_.resize(site.function + 1, 0);
    if (site.kind == ProbeSite::Kind::Entry) {
      entered_[site.function] = s.time_ns;
    } else if (entered_[site.function] && s.time_ns >= entered_[site.function]) {
      inside[site.function].push_back(int64_t(s.time_ns - entered_[site.function]));
      entered_[site.function] = 0;
    }
  }

 private:
  std::vector<uint64_t> entered_;
};

class Events {
 public:
  ~Events() {
    ring_.unmap();
    for (int fd : fds_) close(fd);
  }
  Events() = default;
  Status open(const SamplingOptions& options, const std::vector<ProbeFunction>& functions) {
    std::vector<ProbeSite> kinds;
    const std::vector<UprobeSite> sites = uprobe_sites(functions, kinds);
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
      uint64_t event_id = 0;
      if (ioctl(*fd, PERF_EVENT_IOC_ID, &event_id) == 0) times_.sites[event_id] = kinds[i];
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
    DecodeStats stats;
    ring_.drain(format, times_, stats);
  }
  size_t sites() const { return fds_.size(); }
  // The median time inside a call of function `f` (uprobe_sites' numbering), 0 if none.
  uint64_t inside_ns(uint32_t f) {
    if (f >= times_.inside.size() || times_.inside[f].empty()) return 0;
    std::vector<int64_t>& v = times_.inside[f];
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return uint64_t(v[v.size() / 2]);
  }

 private:
  InsideTimes times_;
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
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

Result<ProbeCosts> measure_probe_costs(const SamplingOptions& options) {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  auto pattern = Pattern::compile("^callprof_probe_cal_(stepped|leaf_stepped|leaf_emulated)$", "calibration");
  if (!pattern) return pattern.error();
  auto found = find_probe_functions(self, *pattern);
  if (!found) return found.error();
  // Each one's index in `found`, if it is placed as intended.
  auto placed = [&](const char* name, bool emulated, bool returns) -> int {
    for (size_t i = 0; i < found->size(); ++i) {
      const ProbeFunction& f = (*found)[i];
      if (f.name == name) return f.entry_emulated == emulated && f.returns == returns ? int(i) : -1;
    }
    return -1;
  };
  const int fs = placed("callprof_probe_cal_stepped", false, false),
            fls = placed("callprof_probe_cal_leaf_stepped", false, true),
            fle = placed("callprof_probe_cal_leaf_emulated", true, true);
  if (found->size() != 3 || fs < 0 || fls < 0 || fle < 0)
    return make_error("cannot measure the cost of a probe: the calibration functions in " + self +
                      " are not placed as intended");
  Events events;
  if (auto st = events.open(options, *found); !st) return st.error();
  const DecodeFormat format = decode_format(options);
  // Batches without and with the probes alternate, so that a burst of other work on the
  // machine falls on both; the median of their differences is the cost. Each batch's hits
  // must fit the 1 MiB ring (a lost record costs less than a written one).
  const size_t hit_bytes = options.unwind == UnwindMode::Dwarf ? options.stack_bytes + 1024 : 1024;
  const int calls = int(std::clamp<size_t>((1 << 20) / (2 * hit_bytes), 16, 64)), batches = 21;
  std::vector<int64_t> stepped, leaf_stepped, leaf_emulated;
  events.enable(true);
  for (int b = 0; b < batches; ++b) {
    auto difference = [&](uint64_t probed) {
      const uint64_t bare = batch_ns<callprof_probe_cal_bare>(calls);
      events.drain(format);
      return (int64_t(probed) - int64_t(bare)) / calls;  // per call
    };
    stepped.push_back(difference(batch_ns<callprof_probe_cal_stepped>(calls)));
    leaf_stepped.push_back(difference(batch_ns<callprof_probe_cal_leaf_stepped>(calls)));
    leaf_emulated.push_back(difference(batch_ns<callprof_probe_cal_leaf_emulated>(calls)));
  }
  auto median = [](std::vector<int64_t>& v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  // A call of `stepped` costs 2 single-stepped hits; of `leaf_stepped` one and a return
  // probe's hit; of `leaf_emulated` an emulated hit and a return probe's hit.
  const int64_t s = median(stepped) / 2;
  if (s <= 0) return make_error("cannot measure the cost of a probe: the machine is too busy to tell");
  const int64_t r = std::max<int64_t>(0, median(leaf_stepped) - s);
  const int64_t e = std::max<int64_t>(0, median(leaf_emulated) - r);
  return ProbeCosts{uint64_t(s),
                    uint64_t(e),
                    uint64_t(r),
                    events.inside_ns(uint32_t(fs)),
                    events.inside_ns(uint32_t(fls)),
                    events.inside_ns(uint32_t(fle))};
}

}  // namespace callprof::probes

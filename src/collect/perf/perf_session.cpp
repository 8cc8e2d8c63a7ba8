// Opening, draining and closing a session's events. One ring per CPU: perf only lets
// per-CPU events of an inherited (task) session be mapped, and SET_OUTPUT only joins
// events of the same CPU, so every other event on a CPU writes into that CPU's ring.
#include "collect/perf/perf_session.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>

#include "collect/perf/perf_events.h"
#include "collect/perf/perf_target.h"

namespace callprof::perf {
namespace {

// Passes records on, minus those of processes other than the target (follow_children off).
class TargetOnlySink : public RecordSink {
 public:
  TargetOnlySink(RecordSink& next, uint32_t pid, uint64_t& dropped) : next_(next), pid_(pid), dropped_(dropped) {}
  void on_sample(Sample&& s) override { keep(s.pid) ? next_.on_sample(std::move(s)) : void(); }
  void on_mapping(Mapping&& m) override { keep(m.pid) ? next_.on_mapping(std::move(m)) : void(); }
  void on_task(TaskEvent&& e) override { keep(e.pid) ? next_.on_task(std::move(e)) : void(); }
  void on_switch(const SwitchEvent& e) override { keep(e.pid) ? next_.on_switch(e) : void(); }
  void on_lost(const LostEvent& e, LostKind k) override { next_.on_lost(e, k); }

 private:
  bool keep(uint32_t pid) { return pid == pid_ || (++dropped_, false); }
  RecordSink& next_;
  uint32_t pid_;
  uint64_t& dropped_;
};

// Closing the last event of a uprobe waits for an RCU grace period, serialized in the
// kernel (~40 ms each here): thousands of probe sites took minutes. A child process takes
// over the events, closes them and then removes the definitions, while we go on; our own
// copies close at no cost. It keeps none of our streams (a reader waiting for the end of
// our output must not wait for it) and leaves our session, so Ctrl-C does not stop it.
// Closes every descriptor above stderr that is not in `keep`.
void close_all_but(const std::vector<int>& keep) {
  const std::unordered_set<int> kept(keep.begin(), keep.end());
  std::vector<int> others;
  if (DIR* dir = opendir("/proc/self/fd")) {
    const int own = dirfd(dir);
    while (dirent* e = readdir(dir)) {
      const int fd = atoi(e->d_name);
      if (fd > 2 && fd != own && !kept.count(fd)) others.push_back(fd);
    }
    closedir(dir);
  }
  for (int fd : others) close(fd);
}

bool close_in_background(const std::vector<int>& fds, UprobeDefinitions& definitions) {
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    setsid();
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int stream = 0; stream < 3; ++stream) dup2(null, stream);
    close_all_but(fds);  // an eBPF tracer's descriptors would keep its programs attached
    for (int fd : fds) close(fd);
    definitions.remove_now();
    _exit(0);
  }
  for (int fd : fds) close(fd);
  definitions.release();
  return true;
}

}  // namespace

PerfSession::PerfSession(pid_t target, const SamplingOptions& options)
    : target_(target), options_(options), format_(decode_format(options)), cpus_(online_cpus()) {
  if (options_.ring_bytes == 0) options_.ring_bytes = default_ring_bytes(options_);
  ring_fds_.assign(cpus_.size(), -1);
  rings_.resize(cpus_.size());
  stats_.rings = cpus_.size();
  stats_.ring_bytes = options_.ring_bytes;
}

PerfSession::PerfSession(PerfSession&& o) noexcept
    : target_(o.target_),
      options_(o.options_),
      format_(std::move(o.format_)),
      cpus_(std::move(o.cpus_)),
      fds_(std::exchange(o.fds_, {})),
      ring_fds_(std::exchange(o.ring_fds_, {})),
      rings_(std::move(o.rings_)),
      pidfd_(std::exchange(o.pidfd_, -1)),
      exited_(o.exited_),
      initial_threads_(std::move(o.initial_threads_)),
      initial_mappings_(std::move(o.initial_mappings_)),
      stats_(o.stats_),
      uprobe_definitions_(std::move(o.uprobe_definitions_)),
      uprobe_sites_(std::move(o.uprobe_sites_)),
      refused_(std::move(o.refused_)),
      site_fds_(std::move(o.site_fds_)) {}

PerfSession::~PerfSession() { close_all(); }

Status PerfSession::open_pidfd(const std::string& what) {
  pidfd_ = int(syscall(SYS_pidfd_open, target_, 0));
  if (pidfd_ < 0) return make_error(what + ": " + (errno == ESRCH ? "no such process" : std::strerror(errno)));
  return Ok{};
}

Status PerfSession::add_to_ring(int fd, size_t i, const std::string& what) {
  if (ring_fds_[i] < 0) {
    auto ring = PerfRing::map(fd, options_.ring_bytes);
    if (!ring) return make_error(what + ": " + ring.error().message);
    rings_[i] = std::move(*ring);
    ring_fds_[i] = fd;
  } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fds_[i]) != 0) {
    return make_error(what + ": cannot share the CPU's perf ring: " + std::strerror(errno));
  }
  return Ok{};
}

// The sampler (and off-CPU sampler) of one thread on one CPU; the first sampler on a CPU
// gets the ring, the others are redirected into it.
Status PerfSession::open_cpu_events(pid_t tid, size_t i, bool on_exec, const std::string& what, int* err) {
  for (EventRole role : {EventRole::Sampler, EventRole::SwitchSampler}) {
    if (role == EventRole::SwitchSampler && !options_.off_cpu) break;
    perf_event_attr attr = make_attr(options_, role, on_exec);
    if (ring_fds_[i] < 0) attr.watermark = 1, attr.wakeup_watermark = uint32_t(options_.ring_bytes / 4);
    auto fd = open_event(attr, tid, cpus_[i], what, err);
    if (!fd) return fd.error();
    fds_.push_back(*fd);
    ++stats_.events;
    if (role == EventRole::SwitchSampler) {
      auto id = event_id(*fd);
      if (!id) return make_error(what + ": " + id.error().message);
      format_.switch_ids.push_back(*id);
    }
    if (auto st = add_to_ring(*fd, i, what); !st) return st;
  }
  return open_uprobes(tid, i, on_exec, what, err);
}

// A site the kernel refuses (EINVAL: not an instruction it can single-step or emulate) is
// left out from then on; any other error fails the session.
Status PerfSession::open_uprobes(pid_t tid, size_t i, bool on_exec, const std::string& what, int* err) {
  if (options_.uprobes.empty()) return Ok{};
  if (refused_.empty()) {  // first thread and CPU: define the sites
    auto defined = UprobeDefinitions::define(options_.uprobes);
    if (!defined) return defined.error();
    uprobe_definitions_ = std::move(*defined);
    refused_.assign(options_.uprobes.size(), false);
    site_fds_.assign(options_.uprobes.size(), {});
    for (uint32_t site = 0; site < options_.uprobes.size(); ++site)
      refused_[site] = uprobe_definitions_.ids()[site] == 0;
  }
  for (uint32_t site = 0; site < options_.uprobes.size(); ++site) {
    if (refused_[site]) continue;
    perf_event_attr attr =
        make_uprobe_attr(options_, uprobe_definitions_.ids()[site], options_.uprobes[site].needs_stack, on_exec);
    int e = 0;
    auto fd = open_event(attr, tid, cpus_[i], what, &e);
    if (!fd && (e == EINVAL || e == EOPNOTSUPP || e == ENOENT)) {
      refused_[site] = true;
      continue;
    }
    if (!fd) {
      if (err) *err = e;
      return fd.error();
    }
    fds_.push_back(*fd);
    site_fds_[site].push_back(*fd);
    ++stats_.events;
    auto id = event_id(*fd);
    if (!id) return make_error(what + ": " + id.error().message);
    uprobe_sites_[*id] = site;
    if (auto st = add_to_ring(*fd, i, what); !st) return st;
  }
  return Ok{};
}

Result<PerfSession> PerfSession::open_launched(pid_t child, const SamplingOptions& options) {
  PerfSession s(child, options);
  std::string what = "cannot sample process " + std::to_string(child);
  if (s.cpus_.empty()) return make_error(what + ": no online CPUs found in /sys/devices/system/cpu/online");
  if (auto st = s.open_pidfd(what); !st) return st.error();
  for (size_t i = 0; i < s.cpus_.size(); ++i) {
    if (auto st = s.open_cpu_events(child, i, true, what); !st) return st.error();
  }
  return s;
}

Result<PerfSession> PerfSession::attach(pid_t pid, const SamplingOptions& options) {
  std::string what = "cannot attach to process " + std::to_string(pid);
  if (auto st = check_process(pid); !st) return make_error(what + ": " + st.error().message);
  PerfSession s(pid, options);
  if (s.cpus_.empty()) return make_error(what + ": no online CPUs found in /sys/devices/system/cpu/online");
  if (auto st = s.open_pidfd(what); !st) return st.error();
  s.initial_threads_ = read_threads(pid);
  s.initial_mappings_ = read_mappings(pid);
  // Threads created from now on by an opened thread inherit its events. (One created by a
  // not yet opened thread during this loop is missed: see docs/sampling.md.)
  for (pid_t tid : thread_ids(pid)) {
    for (size_t i = 0; i < s.cpus_.size(); ++i) {
      int err = 0;
      auto st = s.open_cpu_events(tid, i, false, what, &err);
      if (st) continue;
      if (err != ESRCH || tid == pid) return st.error();
      break;  // this thread ended while we attached
    }
    ++s.stats_.threads_attached;
  }
  if (auto st = check_process(pid); !st) return make_error(what + ": " + st.error().message);
  // Opened disabled and enabled here in one pass, as detach disables them: every probe
  // starts (and stops) within microseconds of the others, so a caller's probe is not
  // still off while its callee's already counts.
  for (int fd : s.fds_) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  return s;
}

void PerfSession::drain(RecordSink& sink) {
  TargetOnlySink filter(sink, uint32_t(target_), stats_.foreign_records);
  RecordSink& to = options_.follow_children ? sink : filter;
  for (PerfRing& ring : rings_) {
    size_t fill = ring.drain(format_, to, stats_.decode);
    if (fill > stats_.max_fill_bytes) stats_.max_fill_bytes = fill;
  }
}

bool PerfSession::poll(RecordSink& sink, int timeout_ms, int also_wake_on) {
  if (exited_ || fds_.empty()) return false;
  std::vector<pollfd> pfds;
  if (also_wake_on >= 0) pfds.push_back({also_wake_on, POLLIN, 0});
  for (int fd : ring_fds_) pfds.push_back({fd, POLLIN, 0});
  pfds.push_back({pidfd_, POLLIN, 0});
  int n = ::poll(pfds.data(), pfds.size(), timeout_ms);
  // The kernel writes a task's last records before it notifies its exit, so one drain
  // after the pidfd turns readable delivers everything up to the exit.
  if (n > 0 && (pfds.back().revents & POLLIN)) exited_ = true;
  drain(sink);
  return !exited_;
}

void PerfSession::detach(RecordSink& sink) {
  for (int fd : fds_) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);  // also disables inherited copies
  drain(sink);
  close_all();
}

void PerfSession::remove_uprobes(const std::vector<uint32_t>& sites) {
  std::vector<int> closing;
  for (uint32_t site : sites)
    if (site < site_fds_.size())
      closing.insert(closing.end(), site_fds_[site].begin(), site_fds_[site].end()), site_fds_[site].clear();
  // A uprobe event never owns a CPU's ring (the sampler opened first does), so the rings stay.
  const std::unordered_set<int> gone(closing.begin(), closing.end());  // attached: thousands of events
  std::erase_if(fds_, [&](int fd) { return gone.count(fd) > 0; });
  // Disabled all at once first (closing one waits for the kernel to take its breakpoint
  // out): a function's entry and return probes stop recording within microseconds.
  for (int fd : closing) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  for (int fd : closing) close(fd);
}

void PerfSession::close_all() {
  for (PerfRing& ring : rings_) ring.unmap();
  // Closing an event frees the copies inherited by the target's threads and children.
  constexpr size_t kSlowClosesInForeground = 16;
  if (uprobe_sites_.size() <= kSlowClosesInForeground * cpus_.size() || !close_in_background(fds_, uprobe_definitions_))
    for (int fd : fds_) close(fd);
  fds_.clear();
  uprobe_sites_.clear();
  uprobe_definitions_ = UprobeDefinitions{};  // only once nothing uses them
  ring_fds_.assign(ring_fds_.size(), -1);
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
}

}  // namespace callprof::perf

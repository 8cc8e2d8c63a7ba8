// Loader for syscall_probe.bpf.c through its bpftool skeleton. Options become .rodata
// constants before load (the verifier then prunes what is not used and sizes records
// statically); the call and process bitmaps are .bss, written through the skeleton's
// mapping, so adding a process is a memory write, not a system call.
// libbpf reports through a process-wide print callback: we keep its warnings of the
// current open() to name the cause in our one-line error instead of letting it print.
#include "collect/syscalls/syscall_tracer.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

#include "collect/syscalls/syscall_probe.skel.h"
#include "collect/syscalls/syscall_records.h"

namespace callprof::syscalls {
namespace {

// 8 MiB holds ~25,000 calls with the default 256-byte window; a larger window gets a ring
// that holds as many (up to 64 MiB), since the reader's pace does not change with it.
uint32_t default_ring_bytes(uint32_t window_bytes) {
  const uint64_t record = sizeof(callprof_syscall_record) + window_bytes + 8 * CALLPROF_SYSCALL_USER_FRAMES / 2;
  uint32_t ring = 8u << 20;
  while (ring < (64u << 20) && uint64_t(ring) < 25000 * record) ring *= 2;
  return ring;
}
constexpr uint32_t kDefaultMaxStacks = 32768;
constexpr ino_t kInitPidNamespaceInode = 0xEFFFFFFC;  // PROC_PID_INIT_INO, fixed since Linux 3.8

static_assert(kMaxSyscallNumber == CALLPROF_SYSCALL_MAX_NR);
static_assert(sizeof(callprof_syscall_record) == 88);
static_assert(sizeof(callprof_process_record) == 32);
static_assert(sizeof(callprof_sample_record) == 40);
static_assert(sizeof(callprof_syscall_counters) % 8 == 0);  // per-CPU values are 8-byte slots

// libbpf's messages during one open(): the first warning names the failing object, the
// verifier log's last line says why.
class LibbpfMessages {
 public:
  LibbpfMessages() {
    std::lock_guard lock(mutex_);
    std::call_once(installed_, [] { libbpf_set_print(&LibbpfMessages::print); });
    messages_.clear();
  }
  std::string summary() const {
    std::lock_guard lock(mutex_);
    std::string first, verifier;
    for (const std::string& m : messages_) {
      if (first.empty()) first = first_line(m);
      if (size_t end = m.find("-- END PROG LOAD LOG --"); end != std::string::npos) verifier = verifier_error(m, end);
    }
    if (!verifier.empty()) first += " (" + verifier + ")";
    return first;
  }

 private:
  static std::string first_line(const std::string& m) {
    std::string line = m.substr(0, m.find('\n'));
    if (line.starts_with("libbpf: ")) line.erase(0, 8);
    return line;
  }
  // The verifier's complaint is the last line of its log before the statistics. Read
  // backwards from the end marker: a log can be megabytes long.
  static std::string verifier_error(const std::string& m, size_t end) {
    size_t line_end = end;
    while (line_end > 0) {
      const size_t start = m.rfind('\n', line_end - 1);
      const size_t from = start == std::string::npos ? 0 : start + 1;
      std::string_view line(m.data() + from, line_end - from);
      if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
      if (!line.empty() && !line.starts_with("processed ") && !line.starts_with("verification time") &&
          !line.starts_with("stack depth") && !line.starts_with("-- END"))
        return std::string(line);
      if (start == std::string::npos) break;
      line_end = start;
    }
    return {};
  }
  static int print(enum libbpf_print_level level, const char* format, va_list args) {
    if (level == LIBBPF_DEBUG) return 0;
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    if (n <= 0) return 0;
    std::string text(size_t(n) + 1, '\0');
    vsnprintf(text.data(), text.size(), format, args);
    text.pop_back();
    std::lock_guard lock(mutex_);
    if (messages_.size() < 64) messages_.push_back(std::move(text));
    return 0;
  }
  static inline std::once_flag installed_;
  static inline std::mutex mutex_;
  static inline std::vector<std::string> messages_;
};

Status check_options(const TracerOptions& o) {
  if (o.selected.none() && o.sample_hz == 0) return make_error("no system calls selected for tracing");
  if (o.window_bytes > CALLPROF_SYSCALL_MAX_WINDOW || o.window_bytes % 8 != 0)
    return make_error("stack window of " + std::to_string(o.window_bytes) +
                      " bytes: must be a multiple of 8 from 0 to " + std::to_string(CALLPROF_SYSCALL_MAX_WINDOW));
  if (o.ring_bytes != 0 && (!std::has_single_bit(o.ring_bytes) || o.ring_bytes < uint32_t(sysconf(_SC_PAGESIZE))))
    return make_error("ring of " + std::to_string(o.ring_bytes) + " bytes: must be a power of two of at least a page");
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
    return make_error("system-call tracing needs a kernel with BTF (/sys/kernel/btf/vmlinux is missing)");
  // The probe filters on pids as the initial PID namespace numbers them; inside a container
  // ours differ and the probe would silently trace nothing.
  struct stat ns;
  if (stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino != kInitPidNamespaceInode)
    return make_error("system-call tracing does not work inside a PID namespace (container) yet");
  return Ok{};
}

// Frames per stack: the kernel refuses stack maps deeper than kernel.perf_event_max_stack.
uint32_t stack_depth() {
  std::ifstream in("/proc/sys/kernel/perf_event_max_stack");
  uint32_t limit = CALLPROF_SYSCALL_STACK_DEPTH;
  if (in >> limit && limit > 0) return std::min<uint32_t>(limit, CALLPROF_SYSCALL_STACK_DEPTH);
  return CALLPROF_SYSCALL_STACK_DEPTH;
}

Error load_error(int err, const LibbpfMessages& messages) {
  // libbpf's own text for EPERM guesses at kernel config and memlock limits: leave it out.
  if (err == EPERM)
    return make_error("system-call tracing needs root or CAP_BPF+CAP_PERFMON: the kernel refused to load the probe (" +
                      std::string(std::strerror(err)) + ")");
  std::string detail = messages.summary();
  return make_error("cannot load the system-call probe: " + (detail.empty() ? std::strerror(err) : detail));
}

void configure(syscall_probe* probe, const TracerOptions& o, uint32_t depth) {
  uint32_t ring_bytes = o.ring_bytes ? o.ring_bytes : default_ring_bytes(o.window_bytes);
  probe->rodata->cfg_stack_mode = o.stacks == StackMode::None   ? CALLPROF_STACKS_NONE
                                  : o.stacks == StackMode::User ? CALLPROF_STACKS_USER
                                                                : CALLPROF_STACKS_FULL;
  probe->rodata->cfg_window_bytes = o.window_bytes;
  probe->rodata->cfg_follow_children = o.follow_children;
  probe->rodata->cfg_wakeup_bytes = ring_bytes / 4;
  for (uint32_t nr = 0; nr < kMaxSyscallNumber; ++nr)
    if (o.selected[nr]) probe->bss->selected_syscalls[nr / 64] |= uint64_t(1) << (nr % 64);
  bpf_map__set_max_entries(probe->maps.ring, ring_bytes);
  // The stack map is preallocated (~1 KiB an entry): keep a token one when stacks are off.
  // Only kernel stacks (full mode) go into the stack map: user stacks travel as frames.
  uint32_t stacks = o.stacks != StackMode::Full ? 1 : (o.max_stacks ? o.max_stacks : kDefaultMaxStacks);
  bpf_map__set_max_entries(probe->maps.stacks, stacks);
  bpf_map__set_value_size(probe->maps.stacks, depth * sizeof(uint64_t));
  bpf_program__set_autoload(probe->progs.on_sched_switch, o.stacks == StackMode::Full);
  bpf_program__set_autoload(probe->progs.on_sample, o.sample_hz > 0);
}

}  // namespace

SyscallTracer::SyscallTracer(const TracerOptions& options) : options_(options) {}

SyscallTracer::~SyscallTracer() {
  for (bpf_link* link : sample_links_) bpf_link__destroy(link);
  for (int fd : sample_fds_) close(fd);
  ring_buffer__free(ring_);
  syscall_probe__destroy(probe_);
}

Result<std::unique_ptr<SyscallTracer>> SyscallTracer::open(const TracerOptions& options) {
  if (auto ok = check_options(options); !ok) return ok.error();
  LibbpfMessages messages;
  std::unique_ptr<SyscallTracer> tracer(new SyscallTracer(options));
  tracer->probe_ = syscall_probe__open();
  if (!tracer->probe_) return make_error("cannot open the system-call probe: " + std::string(std::strerror(errno)));
  tracer->stack_depth_ = stack_depth();
  configure(tracer->probe_, options, tracer->stack_depth_);
  if (int err = syscall_probe__load(tracer->probe_); err) return load_error(-err, messages);
  if (int err = syscall_probe__attach(tracer->probe_); err) {
    std::string detail = messages.summary();
    return make_error("cannot attach the system-call probe: " + (detail.empty() ? std::strerror(-err) : detail));
  }
  if (options.sample_hz > 0)
    if (Status s = tracer->open_sampling(); !s) return s.error();
  tracer->ring_ =
      ring_buffer__new(bpf_map__fd(tracer->probe_->maps.ring), &SyscallTracer::on_record, tracer.get(), nullptr);
  if (!tracer->ring_) return make_error("cannot map the system-call ring buffer: " + std::string(std::strerror(errno)));
  return tracer;
}

// One CPU-clock event per online CPU, system-wide (the program filters on the traced
// processes, as the tracepoints do): a thread created later is sampled with no event of
// its own, and the cost is one program run per tick of a CPU, not per thread.
Status SyscallTracer::open_sampling() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (long cpu = 0; cpu < cpus; ++cpu) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.freq = 1;
    attr.sample_freq = options_.sample_hz;
    const int fd = int(syscall(SYS_perf_event_open, &attr, -1, int(cpu), -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0)
      return make_error("cannot open a CPU-clock event on CPU " + std::to_string(cpu) +
                        " for the samples: " + std::strerror(errno));
    sample_fds_.push_back(fd);
    bpf_link* link = bpf_program__attach_perf_event(probe_->progs.on_sample, fd);
    if (!link)
      return make_error("cannot attach the sampling program on CPU " + std::to_string(cpu) + ": " +
                        std::strerror(errno));
    sample_links_.push_back(link);
  }
  return Ok{};
}

Status SyscallTracer::add_process(uint32_t pid) {
  std::string status_path = "/proc/" + std::to_string(pid) + "/status";
  std::ifstream status(status_path);
  std::string line;
  uint32_t tgid = 0;
  while (std::getline(status, line))
    if (line.starts_with("Tgid:")) tgid = uint32_t(std::strtoul(line.c_str() + 5, nullptr, 10));
  if (tgid == 0) return make_error("cannot trace process " + std::to_string(pid) + ": no such process");
  if (tgid != pid)
    return make_error("cannot trace " + std::to_string(pid) + ": it is a thread of process " + std::to_string(tgid));
  if (pid >= CALLPROF_SYSCALL_MAX_PID)
    return make_error("cannot trace process " + std::to_string(pid) + ": pid out of range");
  // The probe sets and clears bits of the same words (forks, exits): atomically, both sides.
  __atomic_fetch_or(&probe_->bss->traced_tgids[pid / 64], uint64_t(1) << (pid % 64), __ATOMIC_SEQ_CST);
  return Ok{};
}

int SyscallTracer::ring_fd() const { return ring_buffer__epoll_fd(ring_); }

int SyscallTracer::poll(EventHandler& handler, int timeout_ms) {
  handler_ = &handler;
  handled_ = 0;
  // Records are submitted without a wakeup until the ring is a quarter full, so after the
  // wait the ring is read whether or not epoll reported it.
  int err = ring_buffer__poll(ring_, timeout_ms);
  if (err >= 0 || err == -EINTR) err = ring_buffer__consume(ring_);
  handler_ = nullptr;
  return err < 0 ? err : handled_;
}

void SyscallTracer::drain(EventHandler& handler) {
  handler_ = &handler;
  ring_buffer__consume(ring_);  // reads until it catches up with the producers
  handler_ = nullptr;
}

int SyscallTracer::on_record(void* self, void* data, size_t size) {
  return static_cast<SyscallTracer*>(self)->handle_record(static_cast<const uint8_t*>(data), size);
}

int SyscallTracer::handle_record(const uint8_t* data, size_t size) {
  uint16_t kind = 0;
  if (size >= sizeof kind) std::memcpy(&kind, data, sizeof kind);
  if (kind == CALLPROF_RECORD_SYSCALL && size >= sizeof(callprof_syscall_record)) {
    callprof_syscall_record r;
    std::memcpy(&r, data, sizeof r);
    const size_t space = std::min<size_t>(options_.window_bytes, size - sizeof r);
    const size_t window = std::min<size_t>(r.window_bytes, space);
    const size_t frames = std::min<size_t>(r.user_frames, (size - sizeof r - space) / 8);
    user_frames_.resize(frames);
    if (frames) std::memcpy(user_frames_.data(), data + sizeof r + space, frames * 8);
    SyscallEvent e;
    e.pid = r.tgid;
    e.tid = r.tid;
    e.nr = r.nr;
    e.no_return = r.flags & CALLPROF_SYSCALL_NO_RETURN;
    e.ret = r.ret;
    e.start_ns = r.start_ns;
    e.end_ns = r.end_ns;
    e.kernel_stack = r.kernel_stack;
    e.ip = r.ip;
    e.sp = r.sp;
    e.bp = r.bp;
    e.window = {data + sizeof r, window};
    e.user_frames = user_frames_;
    if (r.flags & CALLPROF_SYSCALL_CONTEXT) e.context = ExactCaller{r.context_node, r.context_fn};
    if (handler_) handler_->on_syscall(e);
  } else if (kind == CALLPROF_RECORD_SAMPLE && size >= sizeof(callprof_sample_record)) {
    callprof_sample_record r;
    std::memcpy(&r, data, sizeof r);
    SampleEvent e;
    e.pid = r.tgid;
    e.tid = r.tid;
    e.time_ns = r.time_ns;
    e.ip = r.ip;
    e.in_kernel = r.flags & CALLPROF_SAMPLE_KERNEL;
    e.in_runtime = r.flags & CALLPROF_SAMPLE_RUNTIME;
    if (r.flags & CALLPROF_SAMPLE_CONTEXT) e.context = ExactCaller{r.context_node, r.context_fn};
    if (handler_) handler_->on_sample(e);
  } else if (kind == CALLPROF_RECORD_PROCESS && size >= sizeof(callprof_process_record)) {
    callprof_process_record r;
    std::memcpy(&r, data, sizeof r);
    ProcessEvent e;
    switch (r.process_kind) {
      case CALLPROF_PROCESS_FORK:
        e.kind = ProcessEvent::Fork;
        e.child = r.other;
        break;
      case CALLPROF_PROCESS_THREAD_START:
        e.kind = ProcessEvent::ThreadStart;
        e.child = r.other;
        break;
      case CALLPROF_PROCESS_EXEC:
        e.kind = ProcessEvent::Exec;
        e.old_tid = r.other;
        break;
      case CALLPROF_PROCESS_THREAD_EXIT:
        e.kind = ProcessEvent::ThreadExit;
        break;
      case CALLPROF_PROCESS_EXIT:
        e.kind = ProcessEvent::ProcessExit;
        break;
      default:
        ++malformed_records_;
        return 0;
    }
    e.pid = r.tgid;
    e.tid = r.tid;
    e.exit_code = r.exit_code;
    e.time_ns = r.time_ns;
    if (handler_) handler_->on_process(e);
  } else {
    ++malformed_records_;
    return 0;
  }
  ++handled_;
  return 0;
}

const std::vector<uint64_t>& SyscallTracer::stack(int32_t id) const {
  static const std::vector<uint64_t> kNone;
  if (id < 0 || options_.stacks == StackMode::None) return kNone;
  auto [it, inserted] = stacks_.try_emplace(id);
  if (inserted) {
    std::vector<uint64_t>& frames = it->second;
    frames.resize(stack_depth_);
    if (bpf_map_lookup_elem(bpf_map__fd(probe_->maps.stacks), &id, frames.data()) != 0) frames.clear();
    frames.erase(std::find(frames.begin(), frames.end(), uint64_t(0)), frames.end());
    frames.shrink_to_fit();
  }
  return it->second;
}

TracerCounts SyscallTracer::counts() const {
  TracerCounts c;
  c.malformed_records = malformed_records_;
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return c;
  std::vector<callprof_syscall_counters> per_cpu(static_cast<size_t>(cpus));
  uint32_t zero = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(probe_->maps.counters), &zero, per_cpu.data()) != 0) return c;
  for (const auto& p : per_cpu) {
    c.events += p.events;
    c.process_events += p.process_events;
    c.lost_events += p.lost_events;
    c.stack_failures += p.stack_failures;
    c.stack_collisions += p.stack_collisions;
    c.pending_failures += p.pending_failures;
    c.unpaired_exits += p.unpaired_exits;
    c.window_failures += p.window_failures;
    c.context_failures += p.context_failures;
    c.samples += p.samples;
  }
  return c;
}

}  // namespace callprof::syscalls

// One attr layout for every event of a session, so one DecodeFormat reads every ring.
#include "collect/perf/perf_events.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>

namespace callprof::perf {
namespace {

uint64_t sample_type(const SamplingOptions& o) {
  uint64_t t = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
               PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  if (o.unwind == UnwindMode::Dwarf) t |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  return t;
}

std::string paranoid_level() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  std::string level;
  return in >> level ? level : "unknown";
}

uint64_t hardware_config(SampleEvent e) {
  switch (e) {
    case SampleEvent::Cycles:
      return PERF_COUNT_HW_CPU_CYCLES;
    case SampleEvent::Instructions:
      return PERF_COUNT_HW_INSTRUCTIONS;
    case SampleEvent::CacheMisses:
      return PERF_COUNT_HW_CACHE_MISSES;
    case SampleEvent::BranchMisses:
      return PERF_COUNT_HW_BRANCH_MISSES;
    case SampleEvent::CpuClock:
      break;
  }
  return PERF_COUNT_SW_CPU_CLOCK;
}

std::string open_error(int err, const std::string& what, const perf_event_attr& attr) {
  switch (err) {
    case ESRCH:
      return what + ": the process has exited";
    case EACCES:
    case EPERM:
      return what + ": permission denied (perf_event_paranoid is " + paranoid_level() +
             "; run as root or lower /proc/sys/kernel/perf_event_paranoid)";
    case EMFILE:
    case ENFILE:
      return what + ": too many open files (one descriptor per thread and CPU; raise `ulimit -n`)";
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
      if (attr.type == PERF_TYPE_HARDWARE)
        return what +
               ": this machine has no hardware counter for the event (no PMU, as in many virtual machines); "
               "use -e cpu-clock";
      return what + ": this kernel does not support cpu-clock sampling with these settings";
    default:
      return what + ": perf_event_open: " + std::strerror(err);
  }
}

// What every event of a session shares: the sample id on side-band records, the one clock,
// inheritance by the target's threads and children, and (launched) enabling at its exec.
void set_session_fields(perf_event_attr& a, bool on_exec) {
  a.sample_id_all = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  a.inherit = 1;
  a.disabled = 1;
  a.enable_on_exec = on_exec;
}

}  // namespace

const char* to_string(UnwindMode mode) { return mode == UnwindMode::Dwarf ? "dwarf" : "fp"; }

const char* to_string(SampleEvent e) {
  switch (e) {
    case SampleEvent::Cycles:
      return "cycles";
    case SampleEvent::Instructions:
      return "instructions";
    case SampleEvent::CacheMisses:
      return "cache-misses";
    case SampleEvent::BranchMisses:
      return "branch-misses";
    case SampleEvent::CpuClock:
      break;
  }
  return "cpu-clock";
}

size_t default_ring_bytes(const SamplingOptions& o) {
  if (o.unwind != UnwindMode::Dwarf) return 256 * 1024;
  // Room for 768 samples: ~77 ms at 10 kHz, of which the reader is woken after a quarter.
  // 192 (2 MiB) overflowed when the reader was starved for ~12 ms by other work on 2 CPUs.
  size_t want = 768 * (size_t(o.stack_bytes) + 512), ring = 512 * 1024;
  while (ring < want) ring *= 2;
  return ring;
}

perf_event_attr make_attr(const SamplingOptions& o, EventRole role, bool on_exec) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.sample_type = sample_type(o);
  if (role == EventRole::Sampler) {
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.freq = 1;  // the kernel turns this into a fixed period of 1e9/freq ns for cpu-clock
    a.sample_freq = o.frequency_hz;
    if (o.event != SampleEvent::CpuClock) {
      a.type = PERF_TYPE_HARDWARE;
      a.config = hardware_config(o.event);
    }
    if (o.frequency_hz == 0) {  // side-band only (system calls traced alone): mappings and tasks
      a.type = PERF_TYPE_SOFTWARE;
      a.config = PERF_COUNT_SW_DUMMY;
      a.freq = 0;
      a.sample_period = 0;
    }
    // Side-band records come from this event only, so each appears once per ring.
    a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
    a.build_id = 1;
    a.context_switch = o.off_cpu;
  } else {
    a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
    a.sample_period = 1;
  }
  a.exclude_kernel = 0;
  a.exclude_hv = 1;
  a.exclude_callchain_kernel = !o.kernel_stacks;
  // As perf does with --call-graph dwarf: the user stack is unwound from the copy instead.
  a.exclude_callchain_user = o.unwind == UnwindMode::Dwarf;
  if (o.unwind == UnwindMode::Dwarf) {
    a.sample_regs_user = kPerfRegsMask;
    a.sample_stack_user = o.stack_bytes;
  }
  set_session_fields(a, on_exec);
  return a;
}

perf_event_attr make_uprobe_attr(const SamplingOptions& o, uint64_t id, bool needs_stack, bool on_exec) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_TRACEPOINT;
  a.config = id;
  a.sample_period = 1;
  a.sample_type = sample_type(o);
  a.exclude_callchain_kernel = 1;  // the kernel part is the breakpoint trap, every time
  // With DWARF too: the chain continues where the stack copy ends. Without a stack (an
  // exit), no chain either: the same layout with empty parts, at half the cost of a hit.
  a.exclude_callchain_user = !needs_stack;
  if (o.unwind == UnwindMode::Dwarf) {
    a.sample_regs_user = kPerfRegsMask;
    a.sample_stack_user = needs_stack ? o.stack_bytes : 0;
  }
  set_session_fields(a, on_exec);
  return a;
}

DecodeFormat decode_format(const SamplingOptions& o) {
  DecodeFormat f;
  f.sample_type = sample_type(o);
  f.regs_user_mask = o.unwind == UnwindMode::Dwarf ? kPerfRegsMask : 0;
  f.sample_id_all = true;
  return f;
}

Result<int> open_event(perf_event_attr& attr, pid_t pid, int cpu, const std::string& what, int* err) {
  int fd = int(syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0 && errno == EINVAL && attr.build_id) {
    attr.build_id = 0;  // before Linux 5.12: MMAP2 with device and inode instead
    fd = int(syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
  }
  if (fd < 0) {
    int e = errno;
    if (err) *err = e;
    return make_error(open_error(e, what, attr));
  }
  return fd;
}

Result<uint64_t> event_id(int fd) {
  uint64_t id = 0;
  if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) return make_error(std::string("perf event id: ") + std::strerror(errno));
  return id;
}

}  // namespace callprof::perf

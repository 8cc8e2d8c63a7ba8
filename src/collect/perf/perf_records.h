// What a sampling session delivers (issue 4, SPEC §1.2): perf_event records decoded into
// plain structs, in time order per ring. The session (perf_session.*) produces them; the
// unwinder (unwinder.*) and the profile builder consume them.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace callprof::perf {

// x86-64 user registers in DWARF numbering (what libdwfl's unwinder takes):
// 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 rip.
inline constexpr size_t kDwarfRegs = 17;
inline constexpr size_t kDwarfSp = 7, kDwarfBp = 6, kDwarfIp = 16;
using UserRegs = std::array<uint64_t, kDwarfRegs>;

struct Sample {
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint64_t period = 0;   // ns of CPU (cpu-clock) or events this sample stands for
  uint64_t ip = 0;
  bool user = true;                    // ip in user space
  std::vector<uint64_t> kernel_chain;  // kernel frames, innermost first (no PERF_CONTEXT_* markers)
  std::vector<uint64_t> user_chain;    // user frames by frame pointers, innermost first (ip first)
  bool has_user_regs = false;          // regs and stack below are valid (DWARF mode)
  UserRegs regs{};
  std::string stack;        // user stack bytes copied at the sample, from regs[kDwarfSp]
  bool switch_out = false;  // an off-CPU sample: the thread was being switched out here
  uint64_t id = 0;          // the event that took it (PERF_SAMPLE_IDENTIFIER): probe mode's site
};

// A completed system call (--syscalls; traced by eBPF, src/collect/syscalls), as the
// collector takes it: a view of the tracer's event, valid during the call. The stack at
// entry is the probe's frame-pointer walk plus the registers and the top of the user stack
// (enough to find the caller of a libc wrapper that has no frame pointer).
struct SyscallSample {
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;                    // the entry, CLOCK_MONOTONIC
  uint64_t ip = 0, sp = 0, bp = 0;         // user registers at entry
  std::span<const uint64_t> user_chain;    // by frame pointers, innermost first, ip first
  std::span<const uint64_t> kernel_chain;  // innermost first (full mode: where it slept)
  std::span<const uint8_t> window;         // user stack bytes from sp
  uint32_t nr = 0;
  std::string_view name;  // static storage (the syscall catalog)
  uint64_t duration_ns = 0;
  int error = 0;  // errno when it failed, else 0
};

// A file mapped executable into a process (PERF_RECORD_MMAP2, and /proc/PID/maps at attach).
struct Mapping {
  uint32_t pid = 0;
  uint64_t start = 0, end = 0, pgoff = 0;
  std::string path;
  std::string build_id;  // lowercase hex when the kernel reported it, else ""
  uint64_t time_ns = 0;
};

struct TaskEvent {
  enum class Kind : uint8_t { Fork, Exit, Comm, Exec } kind = Kind::Fork;
  uint32_t pid = 0, tid = 0, ppid = 0, ptid = 0;
  std::string comm;  // Comm and Exec
  uint64_t time_ns = 0;
};

// A thread switched in or out (PERF_RECORD_SWITCH): pairs give off-CPU intervals.
struct SwitchEvent {
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;
  bool out = false;
  bool preempted = false;  // out, and involuntary
};

struct LostEvent {
  uint64_t lost = 0;  // records the kernel dropped (samples and others)
  uint64_t time_ns = 0;
  // The task whose record noticed the loss: the losses of one ring are not split by
  // thread, so this is where they are charged (usually the thread that filled the ring).
  uint32_t pid = 0, tid = 0;
};

}  // namespace callprof::perf

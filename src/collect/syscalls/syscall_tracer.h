// System-call tracing of chosen processes through eBPF (syscall_probe.bpf.c): loads and
// attaches the probe, takes the processes to trace, and hands one event per completed call
// and one per fork/exec/exit to a handler. Collection only: stack ids and raw registers
// go out as they are; symbolizing and aggregating is the model's job.
// See docs/syscalls-collection.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "collect/syscalls/syscall_catalog.h"
#include "util/result.h"

struct syscall_probe;
struct ring_buffer;
struct bpf_link;

namespace callprof::syscalls {

enum class StackMode : uint8_t {
  None,  // no stacks
  User,  // the user stack at entry (the kernel's frame-pointer walk)
  Full,  // also the kernel stack where the call first slept (none if it never slept)
};

struct TracerOptions {
  SyscallSet selected;  // x86-64 numbers to trace (parse_syscall_selection); must not be empty
  StackMode stacks = StackMode::User;
  uint32_t window_bytes = 256;  // user stack bytes copied from sp at entry (0..512, multiple of 8)
  bool follow_children = true;  // processes a traced process creates are traced too
  uint32_t ring_bytes = 0;      // one ring for all CPUs; power of two; 0: 8 MiB, more for large windows
  uint32_t max_stacks = 0;      // distinct kernel stacks kept (full mode); 0: 32768
  // Exact mode with samples: a CPU-clock event at this frequency on every CPU, each tick of
  // a traced thread a SampleEvent. 0: none. With samples, `selected` may be empty.
  uint32_t sample_hz = 0;
};

// Where an exact-mode thread was when it made a call: the node on top of the runtime's
// shadow stack and that node's function (wire/syscall_context.h).
struct ExactCaller {
  uint32_t node = 0;
  uint64_t fn = 0;
};

// One completed system call, submitted when it returns (so events come in order of end
// time). Cases to know:
// - exit/exit_group never return: reported at entry (no_return);
// - fork/clone/clone3 return twice: one event for the caller, one for the child (ret 0,
//   the child's pid/tid, the caller's start time and stacks) when the child is traced;
// - a successful execve returns in the new image (ret 0) after the Exec process event;
//   its stacks, registers and window are the old image's;
// - a call interrupted by a signal ends with -ERESTARTSYS etc. (errno_name knows them);
//   the restarted call is a new event;
// - rt_sigreturn's ret is the interrupted code's restored rax.
struct SyscallEvent {
  uint32_t pid = 0;  // tgid
  uint32_t tid = 0;  // for the child's return from fork/clone: the child
  uint32_t nr = 0;
  bool no_return = false;  // exit/exit_group: end_ns == start_ns, ret 0
  int64_t ret = 0;         // raw return value (-errno on failure)
  uint64_t start_ns = 0;   // CLOCK_MONOTONIC
  uint64_t end_ns = 0;
  int32_t kernel_stack = -1;        // StackMode::Full: where the call first slept; < 0: none
  uint64_t ip = 0, sp = 0, bp = 0;  // user registers at entry
  std::span<const uint8_t> window;  // user stack from sp at entry; valid during the callback only
  // The probe's frame-pointer walk from bp: return addresses, innermost first (the ip is
  // not among them); valid during the callback only.
  std::span<const uint64_t> user_frames;
  // Set when the calling thread announced its shadow stack (exact mode): then no user
  // stack was taken (window and user_frames are empty).
  std::optional<ExactCaller> context;
};

// A CPU-clock tick of a traced thread (TracerOptions::sample_hz).
struct SampleEvent {
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint64_t ip = 0;       // user instruction pointer; in the kernel, where the thread entered it (0: unknown)
  bool in_kernel = false;
  bool in_runtime = false;             // the thread was in the exact-mode runtime's own code
  std::optional<ExactCaller> context;  // the node on top of its shadow stack then
};

struct ProcessEvent {
  enum Kind : uint8_t {
    Fork,         // pid/tid created process `child`
    ThreadStart,  // pid/tid created thread `child`
    Exec,         // pid execs; tid is the thread after exec, old_tid the one that called execve
    ThreadExit,   // thread tid ended, others live on
    ProcessExit,  // the last thread (tid) ended; exit_code as wait() encodes it
  };
  Kind kind = Fork;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t child = 0;
  uint32_t old_tid = 0;
  int32_t exit_code = 0;
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
};

// Everything is counted; nothing goes missing silently.
struct TracerCounts {
  uint64_t events = 0;             // system-call events submitted by the probe
  uint64_t process_events = 0;     // process events submitted
  uint64_t lost_events = 0;        // the ring was full (either kind)
  uint64_t stack_failures = 0;     // a stack could not be taken (no stack id on the event)
  uint64_t stack_collisions = 0;   // a stack's bucket held another stack: max_stacks too small
  uint64_t pending_failures = 0;   // no per-thread storage at entry: the call went unrecorded
  uint64_t unpaired_exits = 0;     // exits without an entry (calls begun before tracing began)
  uint64_t window_failures = 0;    // the user stack window could not be read (event has none)
  uint64_t context_failures = 0;   // an announced shadow stack could not be read (stack taken instead)
  uint64_t samples = 0;            // sample events submitted
  uint64_t malformed_records = 0;  // records user space could not decode (a bug; dropped)
};

class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void on_syscall(const SyscallEvent& event) = 0;
  virtual void on_process(const ProcessEvent& event) = 0;
  virtual void on_sample(const SampleEvent&) {}
};

// Not thread-safe: one thread polls, drains and reads stacks; add_process may be called
// from any thread.
class SyscallTracer {
 public:
  // Loads and attaches the probe; nothing is traced until add_process. Errors are one line
  // ("system-call tracing needs root or CAP_BPF+CAP_PERFMON: …").
  static Result<std::unique_ptr<SyscallTracer>> open(const TracerOptions& options);

  SyscallTracer(const SyscallTracer&) = delete;
  SyscallTracer& operator=(const SyscallTracer&) = delete;
  ~SyscallTracer();  // detaches; events still in the ring are discarded

  // Traces this process (a tgid) from now on: all its threads and, when following, the
  // processes it creates later. A call it is blocked in now is counted as an unpaired exit.
  Status add_process(uint32_t pid);

  // Waits up to timeout_ms for the ring to fill a quarter or a traced process to exit, then
  // hands everything in the ring to handler. Returns the records handled or -errno.
  int poll(EventHandler& handler, int timeout_ms);
  // Hands over everything still in the ring (after the traced processes have ended).
  void drain(EventHandler& handler);
  // Readable when the probe woke the reader (the ring passed a quarter full, or a traced
  // process ended): for a caller's own poll set.
  int ring_fd() const;

  // Addresses of a kernel stack id, innermost first; empty for ids < 0. Ids are never
  // reused while the tracer lives, so each is read from the kernel once and kept; the
  // reference stays valid as long as the tracer.
  const std::vector<uint64_t>& kernel_stack(int32_t id) const { return stack(id); }

  TracerCounts counts() const;  // sums the per-CPU counters
  const TracerOptions& options() const { return options_; }

 private:
  explicit SyscallTracer(const TracerOptions& options);
  static int on_record(void* self, void* data, size_t size);
  int handle_record(const uint8_t* data, size_t size);
  const std::vector<uint64_t>& stack(int32_t id) const;

  TracerOptions options_;
  Status open_sampling();

  syscall_probe* probe_ = nullptr;
  std::vector<int> sample_fds_;  // one CPU-clock event per CPU (sample_hz)
  std::vector<bpf_link*> sample_links_;
  ring_buffer* ring_ = nullptr;
  uint32_t stack_depth_ = 0;         // frames per stack map entry
  EventHandler* handler_ = nullptr;  // during poll/drain
  int handled_ = 0;                  // records handed over by the current poll/drain
  uint64_t malformed_records_ = 0;
  std::vector<uint64_t> user_frames_;                                  // the current event's, aligned
  mutable std::unordered_map<int32_t, std::vector<uint64_t>> stacks_;  // read so far, by id
};

}  // namespace callprof::syscalls

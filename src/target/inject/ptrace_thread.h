// One thread of another process held with ptrace: seized (PTRACE_SEIZE, which sends no
// signal and leaves the process's group-stop state alone), stopped with PTRACE_INTERRUPT,
// its registers and extended state (the whole XSAVE area: x87, SSE, AVX, AVX-512) saved,
// and released with PTRACE_DETACH exactly as it was unless the caller changed it on purpose.
// The other threads keep running. Protocol and limits: docs/attach.md.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace callprof::inject {

// Why the thread stopped after it was let run (PtraceThread::run).
struct Stop {
  int signal = 0;  // the signal of a signal-delivery stop; SIGTRAP for the interrupt's own stop
  bool exited = false;
  bool interrupted = false;  // the PTRACE_INTERRUPT stop (PTRACE_EVENT_STOP)
  user_regs_struct regs{};
};

class PtraceThread {
 public:
  // Seizes thread `tid` of process `pid` and waits until it is stopped (at most `timeout_ms`).
  static Result<PtraceThread> seize(pid_t pid, pid_t tid, int timeout_ms);
  // seize in two steps, for many threads at once: seized and asked to stop; then waited for
  // (finish_seize), or fed the wait statuses a waitpid for any thread got (seize_step: true
  // once it is in the interrupt's stop, its state saved).
  // `extended`: save the extended state too (the XSAVE area: about 0.25 ms per thread here),
  // which a thread whose registers will change needs; one only held stopped does not.
  static Result<PtraceThread> begin_seize(pid_t pid, pid_t tid, bool extended = true);
  Status finish_seize(int timeout_ms);
  Result<bool> seize_step(int status);
  // Whether it ended while held (it is then no longer ours).
  bool ended() const { return !held_; }
  PtraceThread(PtraceThread&& other) noexcept;
  PtraceThread& operator=(PtraceThread&&) = delete;
  // Puts the saved registers and extended state back, then detaches.
  ~PtraceThread();

  pid_t pid() const { return pid_; }
  pid_t tid() const { return tid_; }
  // The registers when it was stopped, as it will get them back.
  const user_regs_struct& saved_regs() const { return saved_; }

  Status set_regs(const user_regs_struct& regs);
  // Moves its pc to `pc` for good: it goes on from there when released (held threads too).
  Status move_pc(uint64_t pc);
  // Lets it run (delivering `signal`, 0: none) until it stops again or `timeout_ms` passes
  // (then it is interrupted: the stop says `interrupted`).
  Result<Stop> run(int signal, int timeout_ms);
  // Lets it go on as it was: the saved state back, then detached. Idempotent.
  Status release();

  Status write_memory(uint64_t address, const void* data, size_t size);
  Status read_memory(uint64_t address, void* data, size_t size);

 private:
  PtraceThread(pid_t pid, pid_t tid) : pid_(pid), tid_(tid) {}
  Result<int> wait_status(int timeout_ms);
  Result<Stop> wait_stop(int timeout_ms);
  Status save_state();

  pid_t pid_ = 0, tid_ = 0;
  bool held_ = false;     // seized, not yet detached
  bool changed_ = false;  // registers set since the save
  bool extended_ = true;  // its extended state is saved, its registers may be changed
  user_regs_struct saved_{};
  std::vector<uint8_t> xstate_;  // NT_X86_XSTATE as read
};

// The threads of process `pid` (/proc/PID/task), main thread first.
std::vector<pid_t> threads_of(pid_t pid);

}  // namespace callprof::inject

#include "target/inject/ptrace_thread.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "target/inject/process_memory.h"

namespace callprof::inject {
namespace {

std::string ptrace_error(const char* what, pid_t tid) {
  return std::string(what) + " of thread " + std::to_string(tid) + ": " + std::strerror(errno);
}

// Whether thread `tid` of `pid` has ended though its exit is not reported yet: the kernel
// holds back a thread group leader's until the group's other threads are reaped, and when
// they are held by this same tracer (a process killed while the injector held them all),
// no one reaps them. Its state is then zombie or dead, or it is gone from /proc.
bool ended_unreported(pid_t pid, pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", int(pid), int(tid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ESRCH;
  char text[512];
  const ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return false;
  text[got] = 0;
  const char* name_end = std::strrchr(text, ')');  // the name may hold anything, ')' too
  return name_end && name_end[1] == ' ' && (name_end[2] == 'Z' || name_end[2] == 'X');
}

uint64_t now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000 + uint64_t(t.tv_nsec) / 1000000;
}

}  // namespace

Result<PtraceThread> PtraceThread::seize(pid_t pid, pid_t tid, int timeout_ms) {
  auto t = begin_seize(pid, tid);
  if (!t) return t.error();
  if (Status s = t->finish_seize(timeout_ms); !s) return s.error();
  return t;
}

Result<PtraceThread> PtraceThread::begin_seize(pid_t pid, pid_t tid, bool extended) {
  // No PTRACE_O_EXITKILL: if callprof dies, the program must live on.
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) return make_error(ptrace_error("cannot seize", tid));
  PtraceThread t(pid, tid);
  t.held_ = true;
  t.extended_ = extended;
  if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) return make_error(ptrace_error("cannot stop", tid));
  return t;
}

Status PtraceThread::finish_seize(int timeout_ms) {
  for (;;) {
    auto status = wait_status(timeout_ms);
    if (!status) return status.error();
    auto stopped = seize_step(*status);
    if (!stopped) return stopped.error();
    if (*stopped) return Ok{};
  }
}

Result<bool> PtraceThread::seize_step(int status) {
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    held_ = false;
    return make_error("thread " + std::to_string(tid_) + " ended");
  }
  if ((status >> 16) == PTRACE_EVENT_STOP) {
    if (Status s = save_state(); !s) return s.error();
    return true;
  }
  // A signal that arrived first shows as its own stop: it is delivered at once, as it would
  // have been without us, and the interrupt's stop follows.
  if (ptrace(PTRACE_CONT, tid_, nullptr, reinterpret_cast<void*>(intptr_t(WSTOPSIG(status)))) != 0)
    return make_error(ptrace_error("cannot resume", tid_));
  return false;
}

PtraceThread::PtraceThread(PtraceThread&& o) noexcept
    : pid_(o.pid_),
      tid_(o.tid_),
      held_(o.held_),
      changed_(o.changed_),
      extended_(o.extended_),
      saved_(o.saved_),
      xstate_(std::move(o.xstate_)) {
  o.held_ = false;
}

PtraceThread::~PtraceThread() { (void)release(); }

Status PtraceThread::save_state() {
  if (ptrace(PTRACE_GETREGS, tid_, nullptr, &saved_) != 0)
    return make_error(ptrace_error("cannot read the registers", tid_));
  if (!extended_) return Ok{};
  xstate_.assign(64 * 1024, 0);
  iovec io{xstate_.data(), xstate_.size()};
  if (ptrace(PTRACE_GETREGSET, tid_, reinterpret_cast<void*>(NT_X86_XSTATE), &io) != 0)
    return make_error(ptrace_error("cannot read the extended registers", tid_));
  xstate_.resize(io.iov_len);
  return Ok{};
}

Status PtraceThread::set_regs(const user_regs_struct& regs) {
  if (!extended_) return make_error("thread " + std::to_string(tid_) + " was held without its extended state");
  changed_ = true;
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &regs) != 0)
    return make_error(ptrace_error("cannot set the registers", tid_));
  return Ok{};
}

Status PtraceThread::move_pc(uint64_t pc) {
  user_regs_struct r = saved_;
  r.rip = pc;
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &r) != 0) return make_error(ptrace_error("cannot set the registers", tid_));
  saved_.rip = pc;
  return Ok{};
}

Result<int> PtraceThread::wait_status(int timeout_ms) {
  const uint64_t until = now_ms() + uint64_t(std::max(timeout_ms, 0));
  for (int polls = 1;; ++polls) {
    int status = 0;
    const pid_t got = waitpid(tid_, &status, __WALL | WNOHANG);
    if (got < 0 && errno != EINTR) return make_error(ptrace_error("cannot wait for", tid_));
    if (got == tid_) return status;
    // Every 10 ms: an end the kernel does not report yet is an end (an exit, status 0).
    if (polls % 50 == 0 && ended_unreported(pid_, tid_)) return 0;
    if (now_ms() >= until) return make_error("thread " + std::to_string(tid_) + " did not stop in time");
    const timespec pause{0, 200000};  // 0.2 ms
    nanosleep(&pause, nullptr);
  }
}

Result<Stop> PtraceThread::wait_stop(int timeout_ms) {
  auto status = wait_status(timeout_ms);
  if (!status) return status.error();
  Stop s;
  if (WIFEXITED(*status) || WIFSIGNALED(*status)) {
    held_ = false;
    s.exited = true;
    return s;
  }
  s.interrupted = (*status >> 16) == PTRACE_EVENT_STOP;
  s.signal = WSTOPSIG(*status);
  if (ptrace(PTRACE_GETREGS, tid_, nullptr, &s.regs) != 0) return make_error(ptrace_error("cannot read", tid_));
  return s;
}

Result<Stop> PtraceThread::run(int signal, int timeout_ms) {
  if (ptrace(PTRACE_CONT, tid_, nullptr, reinterpret_cast<void*>(intptr_t(signal))) != 0)
    return make_error(ptrace_error("cannot resume", tid_));
  auto stop = wait_stop(timeout_ms);
  if (stop) return stop;
  // Too long: stop it where it is (the caller decides what that means).
  if (ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) != 0) return stop.error();
  return wait_stop(1000);
}

Status PtraceThread::release() {
  if (!held_) return Ok{};
  held_ = false;
  Status out = Ok{};
  if (changed_) {
    iovec io{xstate_.data(), xstate_.size()};
    if (ptrace(PTRACE_SETREGS, tid_, nullptr, &saved_) != 0 ||
        (!xstate_.empty() && ptrace(PTRACE_SETREGSET, tid_, reinterpret_cast<void*>(NT_X86_XSTATE), &io) != 0))
      out = make_error(ptrace_error("cannot restore the registers", tid_));
  }
  if (ptrace(PTRACE_DETACH, tid_, nullptr, nullptr) != 0 && out) out = make_error(ptrace_error("cannot detach", tid_));
  return out;
}

Status PtraceThread::write_memory(uint64_t address, const void* data, size_t size) {
  if (!write_process_memory(pid_, address, data, size))
    return make_error("cannot write the memory of process " + std::to_string(pid_) + ": " + std::strerror(errno));
  return Ok{};
}

Status PtraceThread::read_memory(uint64_t address, void* data, size_t size) {
  if (!read_process_memory(pid_, address, data, size))
    return make_error("cannot read the memory of process " + std::to_string(pid_) + ": " + std::strerror(errno));
  return Ok{};
}

std::vector<pid_t> threads_of(pid_t pid) {
  std::vector<pid_t> out;
  DIR* d = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (!d) return out;
  while (dirent* e = readdir(d))
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9') out.push_back(pid_t(std::atoi(e->d_name)));
  closedir(d);
  std::sort(out.begin(), out.end(), [pid](pid_t a, pid_t b) { return (a == pid) != (b == pid) ? a == pid : a < b; });
  return out;
}

}  // namespace callprof::inject

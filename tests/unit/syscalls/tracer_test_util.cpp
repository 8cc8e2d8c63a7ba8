// Children are plain forks of the test process (same addresses as the parent), held at a
// gate so that no call the test counts can begin before the tracer follows the child.
#include "tracer_test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>

namespace callprof::syscalls::test {

bool cannot_trace(const Error& error) { return error.message.starts_with("system-call tracing needs"); }

void Collector::on_syscall(const SyscallEvent& e) {
  calls.push_back(e);
  calls.back().window = {};
  calls.back().user_frames = {};
  windows.emplace_back(e.window.begin(), e.window.end());
  frames.emplace_back(e.user_frames.begin(), e.user_frames.end());
}

void Collector::on_process(const ProcessEvent& e) { processes.push_back(e); }

Child start_child(const std::function<void()>& body) {
  int gate[2], ready[2];
  if (pipe2(gate, O_CLOEXEC) != 0) return {};
  if (pipe2(ready, O_CLOEXEC) != 0) {
    close(gate[0]);
    close(gate[1]);
    return {};
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(gate[1]);
    close(ready[0]);
    // writev and readv, which tests do not select: the child's return from fork and from
    // this signal happen before the parent can add it, and the gate call begins before.
    char c = 'r';
    iovec iov{&c, 1};
    if (writev(ready[1], &iov, 1) != 1) _exit(98);
    if (readv(gate[0], &iov, 1) != 1) _exit(99);
    body();
    _exit(0);
  }
  close(gate[0]);
  close(ready[1]);
  char c;
  bool started = pid > 0 && read(ready[0], &c, 1) == 1;
  close(ready[0]);
  if (!started) {
    close(gate[1]);
    return {};
  }
  return {pid, gate[1]};
}

void release(Child& child) {
  if (child.gate < 0) return;
  [[maybe_unused]] ssize_t n = write(child.gate, "g", 1);
  close(child.gate);
  child.gate = -1;
}

int finish(SyscallTracer& tracer, EventHandler& handler, Child& child, int timeout_ms) {
  release(child);
  int status = -1;
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    tracer.poll(handler, 20);
    if (waitpid(child.pid, &status, WNOHANG) == child.pid) break;
    if (std::chrono::steady_clock::now() > end) {
      kill(child.pid, SIGKILL);
      waitpid(child.pid, nullptr, 0);
      status = -1;
      break;
    }
  }
  tracer.drain(handler);
  return status;
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

}  // namespace callprof::syscalls::test

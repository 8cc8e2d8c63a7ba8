// Helpers for tracer tests: a handler that keeps every event, children held at a gate until
// the tracer has added them, and running a child to its end while draining the ring.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collect/syscalls/syscall_tracer.h"

namespace callprof::syscalls::test {

// Opens a tracer into `var` (a SyscallTracer&), or skips the test when the machine cannot
// trace (not root, no kernel BTF). Any other failure fails the test.
#define OPEN_TRACER_OR_SKIP(var, options)                                              \
  auto var##_opened = ::callprof::syscalls::SyscallTracer::open(options);              \
  if (!var##_opened && ::callprof::syscalls::test::cannot_trace(var##_opened.error())) \
    GTEST_SKIP() << var##_opened.error().message;                                      \
  ASSERT_TRUE(var##_opened) << var##_opened.error().message;                           \
  ::callprof::syscalls::SyscallTracer& var = *var##_opened.value()

bool cannot_trace(const Error& error);

class Collector : public EventHandler {
 public:
  void on_syscall(const SyscallEvent& e) override;
  void on_process(const ProcessEvent& e) override;

  std::vector<SyscallEvent> calls;  // window spans cleared: the bytes are in windows
  std::vector<std::vector<uint8_t>> windows;
  std::vector<std::vector<uint64_t>> frames;  // user_frames, likewise
  std::vector<ProcessEvent> processes;
};

// A forked child that has signalled it is running and blocks in readv (a call tests do not
// select) until release(): no selected call of it is in flight when the tracer adds it.
struct Child {
  pid_t pid = -1;
  int gate = -1;
};
Child start_child(const std::function<void()>& body);  // the child _exit(0)s after body
void release(Child& child);
// Polls the tracer until the child has exited and been reaped, then drains; returns the
// wait status (-1 on timeout, the child is then killed).
int finish(SyscallTracer& tracer, EventHandler& handler, Child& child, int timeout_ms = 10000);

uint64_t monotonic_ns();

}  // namespace callprof::syscalls::test

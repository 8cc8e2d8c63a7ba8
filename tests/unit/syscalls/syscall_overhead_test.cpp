// What tracing costs the traced program, printed (not asserted: speed belongs in bench/):
// ns per getppid() in a child with no tracer, with the probe attached but the process not
// traced, traced with the call unselected, and traced and selected.
#include <gtest/gtest.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iterator>
#include <optional>

#include "collect/syscalls/syscall_tracer.h"
#include "tracer_test_util.h"

namespace callprof::syscalls {
namespace {

constexpr int kCalls = 200'000;
constexpr uint32_t kGetppid = 110, kWrite = 1;

class Counter : public EventHandler {
 public:
  void on_syscall(const SyscallEvent&) override { ++calls; }
  void on_process(const ProcessEvent&) override {}
  uint64_t calls = 0;
};

struct Measured {
  double ns_per_call = 0;
  uint64_t events = 0;
  uint64_t lost = 0;
};

// The child times its own loop and reports through a pipe.
std::optional<Measured> measure(SyscallTracer* tracer, bool add) {
  int result[2];
  if (pipe(result) != 0) return std::nullopt;
  auto child = test::start_child([&] {
    uint64_t start = test::monotonic_ns();
    for (int i = 0; i < kCalls; ++i) getppid();
    uint64_t ns = test::monotonic_ns() - start;
    iovec iov{&ns, sizeof ns};  // writev: not selected in any setup
    if (writev(result[1], &iov, 1) != sizeof ns) _exit(30);
  });
  close(result[1]);
  if (child.pid <= 0) return std::nullopt;
  Counter counter;
  int status = -1;
  if (tracer) {
    if (add && !tracer->add_process(uint32_t(child.pid))) return std::nullopt;
    status = test::finish(*tracer, counter, child);
  } else {
    test::release(child);
    waitpid(child.pid, &status, 0);
  }
  uint64_t ns = 0;
  bool ok = read(result[0], &ns, sizeof ns) == sizeof ns && status == 0;
  close(result[0]);
  if (!ok) return std::nullopt;
  Measured m;
  m.ns_per_call = double(ns) / kCalls;
  m.events = counter.calls;
  if (tracer) m.lost = tracer->counts().lost_events;
  return m;
}

enum class Config {
  NoTracer,
  AttachedNotTraced,
  TracedNotSelected,
  TracedBare,
  TracedWindowOnly,
  TracedStackOnly,
  TracedUserStacks
};

// One tracer at a time: two would add both probes' costs to every call.
std::optional<Measured> measure(Config setup) {
  if (setup == Config::NoTracer) return measure(nullptr, false);
  TracerOptions o;
  o.selected.set(setup == Config::TracedNotSelected ? kWrite : kGetppid);
  if (setup == Config::TracedBare || setup == Config::TracedWindowOnly) o.stacks = StackMode::None;
  if (setup == Config::TracedBare || setup == Config::TracedStackOnly) o.window_bytes = 0;
  auto tracer = SyscallTracer::open(o);
  if (!tracer) return std::nullopt;
  return measure(tracer->get(), setup != Config::AttachedNotTraced);
}

TEST(SyscallTracerOverhead, PrintsNanosecondsPerCall) {
  TracerOptions probe_options;
  probe_options.selected.set(kGetppid);
  {
    OPEN_TRACER_OR_SKIP(probe, probe_options);  // skips here when the machine cannot trace
    static_cast<void>(probe);
  }
  const std::pair<Config, const char*> setups[] = {
      {Config::NoTracer, "no tracer"},
      {Config::AttachedNotTraced, "probe attached (getppid selected), process not traced"},
      {Config::TracedNotSelected, "traced, getppid not selected"},
      {Config::TracedBare, "traced and selected, no stacks, no window"},
      {Config::TracedWindowOnly, "traced and selected, no stacks, 256-byte window"},
      {Config::TracedStackOnly, "traced and selected, user stacks, no window"},
      {Config::TracedUserStacks, "traced and selected, user stacks, 256-byte window"},
  };
  // The best of three rounds, interleaved, against the noise of a shared machine.
  std::optional<Measured> best[std::size(setups)];
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < std::size(setups); ++i) {
      auto m = measure(setups[i].first);
      ASSERT_TRUE(m) << setups[i].second;
      if (setups[i].first >= Config::TracedBare) {
        EXPECT_EQ(m->events + m->lost, uint64_t(kCalls)) << setups[i].second;
      } else {
        EXPECT_EQ(m->events, 0u) << setups[i].second;
      }
      if (!best[i] || m->ns_per_call < best[i]->ns_per_call) best[i] = m;
    }
  }
  std::printf("getppid() x %d, best of 3:\n", kCalls);
  for (size_t i = 0; i < std::size(setups); ++i)
    std::printf("  %-56s %7.1f ns/call  (%llu events, %llu lost)\n", setups[i].second, best[i]->ns_per_call,
                (unsigned long long)best[i]->events, (unsigned long long)best[i]->lost);
}

}  // namespace
}  // namespace callprof::syscalls

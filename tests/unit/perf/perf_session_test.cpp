// Sessions on a launched child: samples from both threads at the expected rate, side-band
// records, DWARF registers and stacks, no loss at 10 kHz, off-CPU samples and switches.
#include "collect/perf/perf_session.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "session_test_util.h"

namespace callprof::perf {
namespace {

using test::Collected;

#define SKIP_IF_NO_PERF() \
  if (auto why = test::cannot_sample()) GTEST_SKIP() << *why;

struct SpinRun {
  Collected got;
  test::Launched child;
  SessionStats stats;
  int status = -1;
};

// Runs `busy_child spin MS` (two threads, MS ms of CPU each) under a session.
bool run_spin(const SamplingOptions& o, int ms, SpinRun& run) {
  std::optional<PerfSession> session;
  std::string error;
  auto child = test::launch_busy_child({"spin", std::to_string(ms)}, o, session, error);
  EXPECT_TRUE(child) << error;
  if (!child) return false;
  run.child = *child;
  run.status = test::run_to_exit(*session, child->pid, run.got);
  run.stats = session->stats();
  close(child->out);
  return true;
}

size_t in_spin_here(const SpinRun& r, uint32_t tid) {
  return size_t(std::count_if(r.got.samples.begin(), r.got.samples.end(),
                              [&](const Sample& s) { return s.tid == tid && s.ip - r.child.spin_here < 512; }));
}

void check_common(const SpinRun& r, int ms, uint64_t hz) {
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << "status " << r.status;
  EXPECT_EQ(r.stats.decode.lost_records + r.stats.decode.lost_samples, 0u);
  EXPECT_EQ(r.stats.decode.malformed, 0u);
  // Both threads, each with about ms * hz / 1000 samples of its own CPU time.
  auto per_tid = r.got.samples_per_tid();
  size_t expected = size_t(ms) * hz / 1000, busy_threads = 0;
  for (auto [tid, n] : per_tid) {
    if (n < expected / 2) continue;  // start-up and exit of the process: a few samples
    ++busy_threads;
    EXPECT_LT(n, expected * 3 / 2) << "tid " << tid;
    EXPECT_GT(in_spin_here(r, tid), n / 2) << "tid " << tid << ": samples not in spin_here";
  }
  EXPECT_EQ(busy_threads, 2u) << "samples per thread not as expected (" << per_tid.size() << " threads seen)";
  // Side band: the executable's MMAP2, exec's COMM, the thread's FORK and EXIT.
  std::string exe = std::filesystem::canonical(SAMPLING_BUSY_CHILD);
  EXPECT_TRUE(std::any_of(r.got.maps.begin(), r.got.maps.end(), [&](auto& m) { return m.path == exe; }));
  auto has = [&](TaskEvent::Kind k) {
    return std::any_of(r.got.tasks.begin(), r.got.tasks.end(), [&](auto& t) { return t.kind == k; });
  };
  EXPECT_TRUE(has(TaskEvent::Kind::Exec));
  EXPECT_TRUE(has(TaskEvent::Kind::Fork));
  EXPECT_TRUE(has(TaskEvent::Kind::Exit));
}

TEST(PerfSession, FramePointersAt1kHz) {
  SKIP_IF_NO_PERF();
  SamplingOptions o;
  o.frequency_hz = 1000;
  SpinRun r;
  ASSERT_TRUE(run_spin(o, 300, r));
  check_common(r, 300, 1000);
  size_t with_chain = 0;
  for (const auto& s : r.got.samples) with_chain += s.user && s.user_chain.size() >= 2 && s.user_chain[0] == s.ip;
  EXPECT_GT(with_chain, r.got.samples.size() / 2) << "user callchains missing";
  EXPECT_FALSE(std::any_of(r.got.samples.begin(), r.got.samples.end(), [](auto& s) { return s.has_user_regs; }));
}

TEST(PerfSession, DwarfAt1kHz) {
  SKIP_IF_NO_PERF();
  SamplingOptions o;
  o.frequency_hz = 1000;
  o.unwind = UnwindMode::Dwarf;
  SpinRun r;
  ASSERT_TRUE(run_spin(o, 300, r));
  check_common(r, 300, 1000);
  size_t good = 0, user = 0;
  for (const auto& s : r.got.samples) {
    if (!s.user) continue;
    ++user;
    good += s.has_user_regs && s.regs[kDwarfIp] == s.ip && s.regs[kDwarfSp] != 0 && s.stack.size() > 64 &&
            s.stack.size() <= o.stack_bytes && s.user_chain.empty();
  }
  EXPECT_GT(user, 0u);
  EXPECT_GT(good, user * 9 / 10) << "user regs or stack missing";
}

// SPEC: no samples lost at 10 kHz on two cores, with the heaviest records (DWARF, 8 KiB).
TEST(PerfSession, DwarfAt10kHzLosesNothing) {
  SKIP_IF_NO_PERF();
  SamplingOptions o;
  o.frequency_hz = 10000;
  o.unwind = UnwindMode::Dwarf;
  SpinRun r;
  ASSERT_TRUE(run_spin(o, 500, r));
  check_common(r, 500, 10000);
  std::printf("[ info ] 10 kHz DWARF: %zu samples, ring %zu KiB/CPU, fullest drain %zu KiB, throttled %lu\n",
              r.got.samples.size(), r.stats.ring_bytes / 1024, r.stats.max_fill_bytes / 1024,
              (unsigned long)r.stats.decode.throttles);
}

TEST(PerfSession, OffCpuSamplesAndSwitches) {
  SKIP_IF_NO_PERF();
  SamplingOptions o;
  o.off_cpu = true;
  o.unwind = UnwindMode::Dwarf;
  std::optional<PerfSession> session;
  std::string error;
  auto child = test::launch_busy_child({"sleep", "20"}, o, session, error);
  ASSERT_TRUE(child) << error;
  Collected got;
  test::run_to_exit(*session, child->pid, got);
  close(child->out);
  size_t switch_samples = 0, with_regs = 0;
  for (const auto& s : got.samples) {
    if (!s.switch_out || s.pid != uint32_t(child->pid)) continue;
    ++switch_samples;
    with_regs += s.has_user_regs && !s.stack.empty() && !s.kernel_chain.empty();
  }
  EXPECT_GE(switch_samples, 20u);  // at least one per nanosleep
  EXPECT_GT(with_regs, switch_samples / 2);
  // Out/in pairs: the sleeps add up to at least 20 x 10 ms off the CPU.
  uint64_t off_ns = 0, out_at = 0;
  for (const auto& e : got.switches) {
    if (e.pid != uint32_t(child->pid)) continue;
    if (e.out)
      out_at = e.time_ns;
    else if (out_at)
      off_ns += e.time_ns - out_at, out_at = 0;
  }
  EXPECT_GE(off_ns, 190'000'000u);
  EXPECT_LT(off_ns, 2'000'000'000u);
  EXPECT_EQ(session->stats().decode.lost_records + session->stats().decode.lost_samples, 0u);
}

TEST(PerfSession, LaunchErrorsAreOneLine) {
  SKIP_IF_NO_PERF();
  auto s = PerfSession::open_launched(999999999, SamplingOptions{});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos);
  EXPECT_NE(s.error().message.find("999999999"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace callprof::perf

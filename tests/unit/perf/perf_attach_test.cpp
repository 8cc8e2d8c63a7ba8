// Attach to a running process, detach, and the process goes on unharmed; attach errors.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "collect/perf/perf_session.h"
#include "session_test_util.h"

namespace callprof::perf {
namespace {

using test::Collected;

// Bytes the "forever" child writes (one per 10 ms) within `ms`.
size_t heartbeats(int fd, int ms) {
  size_t n = 0;
  char buf[256];
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) {
      ssize_t r = read(fd, buf, sizeof buf);
      if (r <= 0) break;
      n += size_t(r);
    }
  }
  return n;
}

// Reads what the child wrote so far, so that heartbeats() counts only what comes next.
void drain(int fd) {
  char buf[256];
  for (pollfd p{fd, POLLIN, 0}; ::poll(&p, 1, 0) > 0 && read(fd, buf, sizeof buf) > 0;) {
  }
}

void expect_one_line(const Result<PerfSession>& s, const std::string& words) {
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos);
  EXPECT_NE(s.error().message.find(words), std::string::npos) << s.error().message;
}

TEST(PerfAttach, AttachSampleDetachLeavesTargetRunning) {
  if (auto why = test::cannot_sample()) GTEST_SKIP() << *why;
  for (UnwindMode mode : {UnwindMode::FramePointers, UnwindMode::Dwarf}) {
    auto child = test::start_busy_child({"forever"});
    ASSERT_GT(child.pid, 0);
    ASSERT_GT(heartbeats(child.out, 100), 0u);
    SamplingOptions o;
    o.unwind = mode;
    o.off_cpu = mode == UnwindMode::Dwarf;  // exercise the redirected second event too
    auto session = PerfSession::attach(child.pid, o);
    ASSERT_TRUE(session) << session.error().message;
    EXPECT_EQ(session->stats().threads_attached, 2u);
    EXPECT_EQ(session->initial_threads().size(), 2u);
    std::string exe = std::filesystem::canonical(SAMPLING_BUSY_CHILD);
    EXPECT_TRUE(std::any_of(session->initial_mappings().begin(), session->initial_mappings().end(),
                            [&](auto& m) { return m.path == exe; }));
    Collected got;
    // Until the child has spun 300 ms of CPU (a loaded machine gives it less than a CPU):
    // cpu-clock samples it at ~999 Hz of its CPU time.
    const double cpu_at_start = test::process_cpu_ms(child.pid);
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < give_up &&
           (std::chrono::steady_clock::now() < end || test::process_cpu_ms(child.pid) - cpu_at_start < 300))
      ASSERT_TRUE(session->poll(got, 50));
    session->detach(got);
    EXPECT_GT(got.samples.size(), 100u);  // the spinning thread, ~999 Hz for 300 ms of its CPU time
    EXPECT_GT(
        std::count_if(got.samples.begin(), got.samples.end(), [&](auto& s) { return s.ip - child.spin_here < 512; }),
        50);
    EXPECT_EQ(session->stats().decode.lost_records + session->stats().decode.lost_samples, 0u);
    // Unharmed: still running (not stopped, not dead), still making progress after the
    // detach (the beats written while it was sampled left in the pipe first).
    char state = test::process_state(child.pid);
    EXPECT_TRUE(state == 'R' || state == 'S') << "state " << state;
    drain(child.out);
    EXPECT_GT(heartbeats(child.out, 200), 5u);
    EXPECT_EQ(waitpid(child.pid, nullptr, WNOHANG), 0);
    kill(child.pid, SIGKILL);
    int status = 0;
    waitpid(child.pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    close(child.out);
  }
}

TEST(PerfAttach, NoSuchProcess) {
  expect_one_line(PerfSession::attach(999999999, SamplingOptions{}), "no process with PID 999999999");
  // A PID that existed: a child that has been reaped.
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  expect_one_line(PerfSession::attach(pid, SamplingOptions{}), "no process with PID " + std::to_string(pid));
}

TEST(PerfAttach, ExitedProcess) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  while (test::process_state(pid) != 'Z') std::this_thread::sleep_for(std::chrono::milliseconds(1));
  expect_one_line(PerfSession::attach(pid, SamplingOptions{}), "process " + std::to_string(pid) + " has exited");
  waitpid(pid, nullptr, 0);
}

TEST(PerfAttach, TargetExitEndsThePollLoop) {
  if (auto why = test::cannot_sample()) GTEST_SKIP() << *why;
  auto child = test::start_busy_child({"spin", "200"});
  auto session = PerfSession::attach(child.pid, SamplingOptions{});
  ASSERT_TRUE(session) << session.error().message;
  Collected got;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (session->poll(got, 100)) ASSERT_LT(std::chrono::steady_clock::now(), end);
  session->detach(got);
  EXPECT_GT(got.samples.size(), 50u);
  EXPECT_TRUE(std::any_of(got.tasks.begin(), got.tasks.end(), [](auto& t) { return t.kind == TaskEvent::Kind::Exit; }));
  waitpid(child.pid, nullptr, 0);
  close(child.out);
}

}  // namespace
}  // namespace callprof::perf

namespace callprof::perf {
namespace {

// Runs `check` in a forked child (so rlimits and credentials stay ours); true if it passed.
template <typename F>
bool in_child(F check) {
  pid_t pid = fork();
  if (pid == 0) _exit(check() ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(PerfAttach, TooManyOpenFilesIsOneLine) {
  if (auto why = test::cannot_sample()) GTEST_SKIP() << *why;
  auto target = test::start_busy_child({"forever"});
  ASSERT_GT(heartbeats(target.out, 100), 0u);  // its spinning thread exists by now
  bool ok = in_child([&] {
    // Room for /proc reads, the pidfd and two events; the attach needs 2 threads x CPUs.
    int lowest_free = dup(0);
    close(lowest_free);
    rlimit few{rlim_t(lowest_free + 3), rlim_t(lowest_free + 3)};
    setrlimit(RLIMIT_NOFILE, &few);
    auto s = PerfSession::attach(target.pid, SamplingOptions{});
    if (s)
      std::fprintf(stderr, "[ info ] attached with %zu events under a limit of %lu\n", s->stats().events,
                   (unsigned long)few.rlim_cur);
    if (s) return false;
    std::fprintf(stderr, "[ info ] %s\n", s.error().message.c_str());
    return s.error().message.find("too many open files (one descriptor per thread and CPU") != std::string::npos &&
           s.error().message.find('\n') == std::string::npos;
  });
  EXPECT_TRUE(ok);
  kill(target.pid, SIGKILL);
  waitpid(target.pid, nullptr, 0);
  close(target.out);
}

TEST(PerfAttach, PermissionDeniedNamesPerfEventParanoid) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to another user";
  auto target = test::start_busy_child({"forever"});
  ASSERT_GT(heartbeats(target.out, 100), 0u);  // its spinning thread exists by now, as in the test above
  bool ok = in_child([&] {
    if (setgid(65534) != 0 || setuid(65534) != 0) return false;  // nobody, profiling root's process
    auto s = PerfSession::attach(target.pid, SamplingOptions{});
    if (s) return false;
    std::fprintf(stderr, "[ info ] %s\n", s.error().message.c_str());
    return s.error().message.find("perf_event_paranoid") != std::string::npos;
  });
  EXPECT_TRUE(ok);
  EXPECT_TRUE(test::process_state(target.pid) == 'R' || test::process_state(target.pid) == 'S');
  kill(target.pid, SIGKILL);
  waitpid(target.pid, nullptr, 0);
  close(target.out);
}

}  // namespace
}  // namespace callprof::perf

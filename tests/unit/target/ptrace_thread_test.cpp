// A held thread whose process is killed while it runs: its end is seen at once, even when
// the kernel holds back its report (a thread group's leader is reported only after its
// other threads are reaped, and those are held by the same tracer, which does not reap them).
#include "target/inject/ptrace_thread.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace callprof::inject {
namespace {

volatile uint64_t g_spins;

void* spin_forever(void*) {
  for (;;) g_spins = g_spins + 1;
  return nullptr;
}

TEST(PtraceThread, ALeaderKilledWhileItRunsIsSeenEndedAtOnceWithItsOtherThreadHeld) {
  if (geteuid() != 0 && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) != 0) GTEST_SKIP() << "no ptrace";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pthread_t other;
    pthread_create(&other, nullptr, spin_forever, nullptr);
    close(ready[0]);
    close(ready[1]);
    spin_forever(nullptr);
  }
  close(ready[1]);
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 0);
  close(ready[0]);
  std::vector<pid_t> tids;
  for (int i = 0; i < 1000 && (tids = threads_of(child)).size() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(tids.size(), 2u);
  {
    auto leader = PtraceThread::seize(child, tids[0], 1000);
    ASSERT_TRUE(leader) << leader.error().message;
    auto other = PtraceThread::seize(child, tids[1], 1000);
    ASSERT_TRUE(other) << other.error().message;
    const pid_t killer = fork();  // kills the child while the leader runs
    ASSERT_GE(killer, 0);
    if (killer == 0) {
      usleep(100000);
      kill(child, SIGKILL);
      _exit(0);
    }
    const auto began = std::chrono::steady_clock::now();
    const auto stop = leader->run(0, 5000);
    const auto took = std::chrono::steady_clock::now() - began;
    ASSERT_TRUE(stop) << stop.error().message;
    EXPECT_TRUE(stop->exited);
    EXPECT_TRUE(leader->ended());
    EXPECT_LT(took, std::chrono::seconds(2)) << "not the 5 s timeout";
    waitpid(killer, nullptr, 0);
  }
  // As the injector's end would: the other thread, still ours, reaped; then the process.
  waitpid(tids[1], nullptr, __WALL);
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
}

}  // namespace
}  // namespace callprof::inject

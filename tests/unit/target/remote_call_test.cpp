// The injection primitives on a child of the test (a fork: the same code at the same
// addresses): a thread held by ptrace runs a function of ours and a libc one with data on
// its stack, and afterwards goes on exactly where it was, registers and vector state too.
#include "target/inject/remote_call.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "target/inject/process_unwinder.h"
#include "target/inject/ptrace_permission.h"
#include "target/inject/safe_point.h"

namespace callprof::inject {
namespace {

volatile uint64_t g_counter;

extern "C" __attribute__((noinline)) uint64_t callprof_test_add3(uint64_t a, uint64_t b, uint64_t c) {
  return a + b * 10 + c * 100;
}

// The child: counts forever in its own code, with a value held in a vector register across
// the loop; it exits 3 if that value changes under it, 0 on SIGTERM.
__attribute__((noinline)) void spin() {
  double kept = 1.5;
  for (;;) {
    __asm__ volatile("" : "+x"(kept));
    if (kept != 1.5) _exit(3);
    g_counter = g_counter + 1;
  }
}

class RemoteCall : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0 && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) != 0) GTEST_SKIP() << "no ptrace";
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    child_ = fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      signal(SIGTERM, [](int) { _exit(0); });
      close(ready[0]);
      close(ready[1]);  // set up: the parent's read returns
      spin();
    }
    close(ready[1]);
    char c;
    ASSERT_EQ(read(ready[0], &c, 1), 0);
    close(ready[0]);
  }
  void TearDown() override {
    if (child_ <= 0) return;
    kill(child_, SIGTERM);
    int status = 0;
    waitpid(child_, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child saw its state change: " << status;
  }
  // Holds the child's thread where it runs its own code (spin), not in libc. Just after the
  // pipe closes the child may still be in close(): released for a millisecond it goes on
  // into spin, which on a loaded machine took longer than 50 back-to-back tries.
  PtraceThread hold() {
    for (int attempt = 0;; ++attempt) {
      {
        auto t = PtraceThread::seize(child_, child_, 1000);
        EXPECT_TRUE(t) << t.error().message;
        auto code = system_code_of(child_);
        EXPECT_TRUE(code);
        if (safe_to_borrow(code_addresses(ProcessUnwinder(child_).frames(child_, 64)), *code) || attempt > 200)
          return std::move(*t);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  pid_t child_ = -1;
};

TEST_F(RemoteCall, AThreadInItsOwnCodeIsSafeToBorrowAndRunsOurFunction) {
  PtraceThread t = hold();
  auto code = system_code_of(child_);
  ASSERT_TRUE(code);
  EXPECT_FALSE(code->ranges.empty()) << "libc and the loader are mapped";
  const auto frames = code_addresses(ProcessUnwinder(child_).frames(child_, 64));
  ASSERT_GE(frames.size(), 3u);
  EXPECT_TRUE(safe_to_borrow(frames, *code));
  auto r = remote_call(t, reinterpret_cast<uint64_t>(&callprof_test_add3), {1, 2, 3}, "", 2000);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, 321u);
  ASSERT_TRUE(t.release());
  // It goes on counting, its vector register intact (TearDown checks its exit status).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

TEST_F(RemoteCall, DataGoesOnTheThreadsStackAndLibcFunctionsRun) {
  PtraceThread t = hold();
  auto r = remote_call(t, reinterpret_cast<uint64_t>(&strlen), {kStackData}, "seventeen letters", 2000);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, 17u);
  // Two calls in a row on the same hold.
  r = remote_call(t, reinterpret_cast<uint64_t>(&callprof_test_add3), {4, 0, 0}, "", 2000);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, 4u);
}

// A thread blocked in read() is borrowed; given back, its read goes on as if nothing had
// happened: restarted, not failed with EINTR.
TEST(RemoteCallBlocked, AThreadWaitingInReadIsBorrowedAndItsReadGoesOn) {
  int data[2], ready[2];
  ASSERT_EQ(pipe(data), 0);
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    close(ready[1]);
    char byte = 0;
    const ssize_t n = read(data[0], &byte, 1);  // blocks here
    _exit(n == 1 && byte == 'x' ? 0 : 4);
  }
  close(ready[1]);
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // into its read
  {
    auto t = PtraceThread::seize(child, child, 1000);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_TRUE(waiting_in_blocking_call(t->saved_regs()));
    auto code = system_code_of(child);
    ASSERT_TRUE(code);
    EXPECT_TRUE(safe_to_borrow(code_addresses(ProcessUnwinder(child).frames(child, 64)), *code, true));
    auto r = remote_call(*t, reinterpret_cast<uint64_t>(&callprof_test_add3), {7, 0, 0}, "", 2000);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, 7u);
  }  // released
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(write(data[1], "x", 1), 1);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "its read failed: status " << status;
}

// A thread waiting on a condition variable (an idle worker of a pool) is borrowed; given
// back, it goes on waiting, and wakes when signalled.
TEST(RemoteCallBlocked, AThreadWaitingOnAConditionVariableIsBorrowedAndWaitsOn) {
  int go[2], ready[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    static bool flag = false;
    static int go_fd = go[0];
    pthread_t signaller;
    pthread_create(
        &signaller, nullptr,
        [](void*) -> void* {
          char byte = 0;
          if (read(go_fd, &byte, 1) == 1) {
            pthread_mutex_lock(&m);
            flag = true;
            pthread_cond_signal(&c);
            pthread_mutex_unlock(&m);
          }
          return nullptr;
        },
        nullptr);
    pthread_mutex_lock(&m);
    close(ready[1]);
    while (!flag) pthread_cond_wait(&c, &m);  // waits here
    pthread_mutex_unlock(&m);
    _exit(0);
  }
  close(ready[1]);
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // into its wait
  {
    auto t = PtraceThread::seize(child, child, 1000);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_FALSE(waiting_in_blocking_call(t->saved_regs())) << "a futex";
    auto code = system_code_of(child);
    ASSERT_TRUE(code);
    ProcessUnwinder unwinder(child);
    const std::vector<uint64_t> frames = code_addresses(unwinder.frames(child, 64));
    const std::string called = called_from_program(frames, *code, unwinder);
    EXPECT_NE(called.find("pthread_cond_wait"), std::string::npos) << called;
    EXPECT_TRUE(waiting_on_program_object(t->saved_regs(), called)) << called;
    EXPECT_TRUE(safe_to_borrow(frames, *code, true));
    auto r = remote_call(*t, reinterpret_cast<uint64_t>(&callprof_test_add3), {7, 0, 0}, "", 2000);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, 7u);
  }  // released
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(waitpid(child, nullptr, WNOHANG), 0) << "still waiting";
  ASSERT_EQ(write(go[1], "x", 1), 1);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST(SafePoint, AThreadInsideLibcIsNotSafeToBorrow) {
  SystemCode code;
  code.ranges = {{0x1000, 0x2000}};
  EXPECT_FALSE(safe_to_borrow({0x1500, 0x1600, 0x1700}, code)) << "innermost in libc";
  EXPECT_FALSE(safe_to_borrow({0x9000, 0x1600, 0x9100, 0x1700, 0x9200}, code)) << "a callback from libc";
  EXPECT_FALSE(safe_to_borrow({0x9000, 0x9100}, code)) << "not unwound down to its base";
  EXPECT_TRUE(safe_to_borrow({0x9000, 0x9100, 0x1600, 0x1700}, code)) << "a thread's own code over start_thread";
  EXPECT_TRUE(safe_to_borrow({0x9000, 0x1600, 0x1700, 0x9300}, code)) << "main over __libc_start_main and _start";
  // Waiting in a blocking system call: libc's wrappers on top are allowed, nothing else.
  EXPECT_TRUE(safe_to_borrow({0x1100, 0x1200, 0x9000, 0x9100, 0x1600}, code, true)) << "nanosleep from our code";
  EXPECT_FALSE(safe_to_borrow({0x1100, 0x1200, 0x9000, 0x1600}, code, false)) << "not waiting: libc on top";
  EXPECT_FALSE(safe_to_borrow({0x1100, 0x9000, 0x1200, 0x9100, 0x1600}, code, true)) << "libc under our code";
  EXPECT_FALSE(safe_to_borrow({0x1100, 0x1200, 0x1600}, code, true)) << "no code of the program's";
  user_regs_struct r{};
  r.orig_rax = SYS_clock_nanosleep;
  EXPECT_TRUE(waiting_in_blocking_call(r));
  r.orig_rax = SYS_futex;
  EXPECT_FALSE(waiting_in_blocking_call(r)) << "a lock";
  EXPECT_TRUE(waiting_on_program_object(r, "___pthread_cond_wait"));
  EXPECT_TRUE(waiting_on_program_object(r, "pthread_join@@GLIBC_2.34"));
  EXPECT_TRUE(waiting_on_program_object(r, "__new_sem_wait"));
  EXPECT_FALSE(waiting_on_program_object(r, "__lll_lock_wait_private")) << "libc's own lock";
  EXPECT_FALSE(waiting_on_program_object(r, "malloc"));
  EXPECT_FALSE(waiting_on_program_object(r, "")) << "not called from the program's code";
  r.orig_rax = ~0ull;
  EXPECT_FALSE(waiting_in_blocking_call(r)) << "not in a system call";
}

TEST_F(RemoteCall, ACallThatNeverReturnsIsStoppedAndReported) {
  PtraceThread t = hold();
  auto r = remote_call(t, reinterpret_cast<uint64_t>(&spin), {}, "", 100);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("did not return"), std::string::npos) << r.error().message;
}

TEST(PtracePermission, AProcessInOurMountNamespaceSeesOurFiles) {
  char self[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
  EXPECT_TRUE(check_visible_in(getpid(), self));
  const Status missing = check_visible_in(getpid(), "/nonexistent/libcallprof-rt.so");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("cannot find"), std::string::npos);
}

TEST(PtracePermission, AnUntracedProcessOfOursMayBeTraced) {
  EXPECT_TRUE(check_ptrace_allowed(getppid()) || geteuid() != 0) << check_ptrace_allowed(getppid()).error().message;
}

}  // namespace
}  // namespace callprof::inject

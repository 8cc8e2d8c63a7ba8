// One attach at a time on a process: the lock is refused while held, waited for, taken when
// let go, and held on by a forked process (the injector) after its parent let go.
#include "target/inject/attach_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace callprof::inject {
namespace {

// A pid of its own per test: no other test (or callprof) locks it.
pid_t locked_pid(int n) { return getpid() * 16 + n; }

TEST(AttachLock, ASecondAttachIsRefusedAfterItsWaitThenTakesTheLockLetGo) {
  auto first = AttachLock::acquire(locked_pid(1), 0);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_GE(first->fd(), 0) << "this machine has Unix sockets";
  const auto began = std::chrono::steady_clock::now();
  auto second = AttachLock::acquire(locked_pid(1), 60);
  EXPECT_GE(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(60));
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("another callprof is attaching to it"), std::string::npos);
  EXPECT_TRUE(AttachLock::acquire(locked_pid(2), 0)) << "another process's lock is another";
  first->release();
  EXPECT_TRUE(AttachLock::acquire(locked_pid(1), 0));
}

TEST(AttachLock, AnAttachWaitsForTheLockToBeLetGo) {
  auto first = AttachLock::acquire(locked_pid(3), 0);
  ASSERT_TRUE(first);
  std::thread letting_go([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first->release();
  });
  auto second = AttachLock::acquire(locked_pid(3), 5000);
  letting_go.join();
  EXPECT_TRUE(second);
}

TEST(AttachLock, AForkedProcessHoldsItAfterItsParentLetGo) {
  auto lock = AttachLock::acquire(locked_pid(4), 0);
  ASSERT_TRUE(lock);
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const pid_t injector = fork();
  if (injector == 0) {  // holds the inherited descriptor until told to end
    char c;
    close(go[1]);
    (void)!read(go[0], &c, 1);
    _exit(0);
  }
  close(go[0]);
  lock->release();
  EXPECT_FALSE(AttachLock::acquire(locked_pid(4), 20)) << "the injector holds it";
  close(go[1]);
  waitpid(injector, nullptr, 0);
  EXPECT_TRUE(AttachLock::acquire(locked_pid(4), 0)) << "gone with the injector";
}

}  // namespace
}  // namespace callprof::inject

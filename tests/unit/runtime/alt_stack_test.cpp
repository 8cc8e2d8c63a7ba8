// The runtime's alternate signal stacks (runtime/alt_stack.h): a thread that ends leaves its
// stack to the next thread attached, which finds it mapped and whole.
#include "alt_stack.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace callprof::rt {
namespace {

// The stack installed for the calling thread, as the kernel has it (the interposed
// sigaltstack reports the runtime's own as none); null when none.
char* installed_stack() {
  stack_t now{};
  if (syscall(SYS_sigaltstack, nullptr, &now) != 0 || (now.ss_flags & SS_DISABLE)) return nullptr;
  return static_cast<char*>(now.ss_sp);
}

// Attaches a thread, writes the whole of its stack, detaches it: the stack it had.
char* attach_use_and_detach() {
  char* stack = nullptr;
  std::thread([&] {
    attach_alt_stack();
    stack = installed_stack();
    stack_t now{};
    syscall(SYS_sigaltstack, nullptr, &now);
    if (stack) std::fill(stack, stack + now.ss_size, char(1));  // faults if it is not mapped
    detach_alt_stack();
    EXPECT_EQ(installed_stack(), nullptr);
  }).join();
  return stack;
}

TEST(AltStack, AThreadStartedAfterAnotherEndedGetsItsStack) {
  char* first = attach_use_and_detach();
  ASSERT_NE(first, nullptr);
  // Had the stack been unmapped, this would take its place, and the next stack another.
  const size_t bytes = 1 << 20;
  void* blocker = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(blocker, MAP_FAILED);
  EXPECT_EQ(attach_use_and_detach(), first) << "the ended thread's stack was not reused";
  munmap(blocker, bytes);
}

TEST(AltStack, EveryStackStaysUsableWhenMoreThreadsEndThanStacksAreKept) {
  // More threads end at once than stacks are kept: every stack stays usable by the threads
  // that come after, whichever ones were kept.
  constexpr int kThreads = 40;
  std::vector<std::thread> threads;
  std::atomic<int> attached{0};
  std::atomic<bool> go{false};
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&] {
      attach_alt_stack();
      ++attached;
      while (!go) std::this_thread::yield();
      detach_alt_stack();
    });
  while (attached < kThreads) std::this_thread::yield();
  go = true;
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) ASSERT_NE(attach_use_and_detach(), nullptr);
}

}  // namespace
}  // namespace callprof::rt

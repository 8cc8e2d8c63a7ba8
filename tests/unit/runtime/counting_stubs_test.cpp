// Counting stubs (runtime/counting_stubs.h), run for real: each adds one to its counter in
// the structure a thread-local pointer names, from code mapped within a call's reach of
// this test's own code, and counts nothing for a thread whose pointer is null.
#include "counting_stubs.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <thread>

namespace callprof::rt {
namespace {

struct Counts {
  uint64_t before[3];  // the counters do not start the structure
  uint64_t calls[8];
};

__thread Counts* t_counts __attribute__((tls_model("initial-exec")));

int32_t tls_offset() {
  uint64_t thread_pointer;
  asm("mov %%fs:0, %0" : "=r"(thread_pointer));
  return int32_t(int64_t(reinterpret_cast<uint64_t>(&t_counts)) - int64_t(thread_pointer));
}

int32_t calls_offset() { return int32_t(offsetof(Counts, calls)); }

void call(uint64_t stub) { reinterpret_cast<void (*)()>(stub)(); }

TEST(CountingStubs, AStubAddsOneToItsCounterOfTheCallingThread) {
  void* m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  encode_counting_stub(tls_offset(), calls_offset() + 8 * 2, static_cast<uint8_t*>(m));
  ASSERT_EQ(mprotect(m, 4096, PROT_READ | PROT_EXEC), 0);
  Counts counts{};
  t_counts = &counts;
  for (int i = 0; i < 5; ++i) call(reinterpret_cast<uint64_t>(m));
  EXPECT_EQ(counts.calls[2], 5u);
  for (uint64_t c : counts.calls) EXPECT_LE(c, 5u);
  EXPECT_EQ(counts.before[0] + counts.before[1] + counts.before[2], 0u) << "nothing else written";
  // Another thread has its own pointer: null, so its calls count nothing anywhere.
  std::thread([&] { call(reinterpret_cast<uint64_t>(m)); }).join();
  EXPECT_EQ(counts.calls[2], 5u);
  t_counts = nullptr;
  munmap(m, 4096);
}

TEST(CountingStubs, StubsAreMappedWithinACallsReachOfTheirModule) {
  const auto here = reinterpret_cast<uint64_t>(&call);
  const uint64_t lo = here & ~uint64_t(0xfff), hi = lo + 0x10000;
  const uint64_t stubs = map_counting_stubs(lo, hi, tls_offset(), calls_offset(), 8);
  ASSERT_NE(stubs, 0u) << "no free place within 2 GiB of the test's code";
  for (uint64_t at : {lo, hi}) {
    EXPECT_LT(std::llabs(int64_t(stubs) - int64_t(at)), int64_t(1) << 31);
    EXPECT_LT(std::llabs(int64_t(stubs + 8 * kCountingStubBytes) - int64_t(at)), int64_t(1) << 31);
  }
  Counts counts{};
  t_counts = &counts;
  for (uint32_t i = 0; i < 8; ++i)
    for (uint32_t k = 0; k <= i; ++k) call(stubs + i * kCountingStubBytes);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(counts.calls[i], i + 1) << i;
  t_counts = nullptr;
}

}  // namespace
}  // namespace callprof::rt

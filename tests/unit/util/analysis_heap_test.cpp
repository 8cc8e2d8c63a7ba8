// The analysis heap's warming: it faults in the memory ahead of the analysis and leaves
// what is there as it was. Each case runs in a child process: tuning the heap is for the
// whole process and cannot be undone.
#include "util/analysis_heap.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

namespace callprof {
namespace {

size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * size_t(sysconf(_SC_PAGESIZE));
}

// Waits up to 10 s for the resident size to reach `bytes`.
bool resident_reaches(size_t bytes) {
  for (int i = 0; i < 1000 && resident_bytes() < bytes; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return resident_bytes() >= bytes;
}

// Exit codes: 0 the warmed memory became resident and the filled bytes are unchanged.
[[noreturn]] void warm_a_tuned_heap() {
  tune_heap_for_analysis();
  constexpr size_t kFilled = size_t(8) << 20, kWarmed = size_t(128) << 20;
  auto* data = static_cast<unsigned char*>(std::malloc(kFilled));
  for (size_t i = 0; i < kFilled; ++i) data[i] = static_cast<unsigned char>(i * 131 + 7);
  const size_t before = resident_bytes();
  warm_heap_ahead(kWarmed);
  if (!resident_reaches(before + kWarmed / 2)) std::_Exit(2);
  for (size_t i = 0; i < kFilled; ++i)
    if (data[i] != static_cast<unsigned char>(i * 131 + 7)) std::_Exit(3);
  std::_Exit(0);
}

[[noreturn]] void warm_an_untuned_heap() {
  const size_t before = resident_bytes();
  warm_heap_ahead(size_t(256) << 20);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::_Exit(resident_bytes() < before + (size_t(64) << 20) ? 0 : 1);
}

TEST(AnalysisHeap, WarmingFaultsInTheHeapAheadAndChangesNothingInIt) {
  EXPECT_EXIT(warm_a_tuned_heap(), ::testing::ExitedWithCode(0), "");
}

TEST(AnalysisHeap, WarmingIsANoOpOnAnUntunedHeap) {
  EXPECT_EXIT(warm_an_untuned_heap(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace callprof

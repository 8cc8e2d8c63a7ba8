// Test programs for unwinder_test, compiled at test time the way distributions build
// (g++ -O2 -g, no frame pointers) so the stacks are what sampling mode meets in practice.
#pragma once

#include <string>

namespace callprof::test_support {

struct TestPrograms {
  std::string chain;     // main -> a -> b -> c, c spins
  std::string chain_fp;  // the same with -fno-omit-frame-pointer
  std::string sort;      // main -> nest x6 -> sort_all -> std::sort -> ... -> spin_less (the comparator) spins
  std::string library;   // main -> a -> lib_b (libunwtest.so) -> c spins
  std::string vdso;      // main -> a -> clock_gettime, which runs in the vDSO
  std::string error;     // non-empty when building failed
};

// Builds the programs into dir (once per process; later calls return the first result).
const TestPrograms& test_programs(const std::string& dir);

}  // namespace callprof::test_support

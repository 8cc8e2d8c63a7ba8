// CLOCK_MONOTONIC in nanoseconds: the clock of perf's and the runtime's timestamps, so a
// time read here can be compared with theirs.
#pragma once

#include <time.h>

#include <cstdint>

namespace callprof {

inline uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

}  // namespace callprof

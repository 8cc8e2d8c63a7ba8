// Turns the raw dumps of one recording (one per process image) into a self-contained
// Profile: symbolizes every address once, converts TSC ticks to nanoseconds, closes the
// frames that were still open, and links threads to the call paths that created them.
#pragma once

#include <string>
#include <vector>

#include "collect/runtime/raw_dump_reader.h"
#include "model/profile.h"

namespace callprof {

struct BuildResult {
  Profile profile;
  std::vector<std::string> warnings;  // symbolization problems, one line each
  uint64_t unmatched_exits = 0;       // over all threads; also in meta.exact when non-zero
};

BuildResult build_profile(const std::vector<RawProcessDump>& dumps);

// Ticks-to-nanoseconds rate from the dump with the longest calibration interval (all
// processes of a recording share the machine's TSC); 0 when no dump has one.
double ns_per_tick(const std::vector<RawProcessDump>& dumps);

}  // namespace callprof

// Reading what the runtime left in the recording's directory: per process image
// "<pid>-<image>.cpraw" (its final dump) or, when it never wrote one (killed), its latest
// "<pid>-<image>.snapshot.cpraw".
#pragma once

#include <string>
#include <vector>

#include "collect/runtime/raw_dump_reader.h"

namespace callprof::record {

struct CollectedDumps {
  std::vector<RawProcessDump> dumps;
  std::vector<std::string> warnings;
  size_t from_snapshots = 0;  // images whose data ends at their last snapshot
};

CollectedDumps collect_dumps(const std::string& dir);

// A fingerprint of the snapshot files (names, sizes, times): changes when one is written.
std::string snapshot_state(const std::string& dir);

}  // namespace callprof::record

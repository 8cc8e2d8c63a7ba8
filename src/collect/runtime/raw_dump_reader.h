// Reads one raw dump written by the in-process runtime (wire/raw_dump.h), validating every
// count and index against the file, so a damaged dump is an error and never a crash.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"
#include "wire/raw_dump.h"

namespace callprof {

struct RawModule {
  uint64_t bias = 0, start = 0, end = 0;
  std::string path;
  std::string build_id;  // lowercase hex
};

struct RawThread {
  wire::DumpThread info{};
  std::vector<wire::DumpNode> nodes;        // node 0 is the root
  std::vector<wire::DumpOpenFrame> open;    // outermost first
  std::vector<wire::DumpNode> interrupts;   // calls of signal handlers that interrupted a hook
};

struct RawProcessDump {
  wire::DumpHeader header{};
  std::vector<std::string> argv;
  std::vector<RawModule> modules;
  std::vector<RawThread> threads;
};

Result<RawProcessDump> parse_raw_dump(const std::string& bytes, const std::string& name);
Result<RawProcessDump> read_raw_dump(const std::string& path);

}  // namespace callprof

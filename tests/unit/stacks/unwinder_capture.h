// Test helper for unwinder_test: runs a program, samples it with a cpu-clock
// perf_event that copies user registers and stack (what sampling mode records), and
// reads its executable mappings from /proc/PID/maps. Independent of the session code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collect/perf/perf_records.h"

namespace callprof::test_support {

struct Capture {
  std::vector<perf::Sample> samples;
  std::vector<perf::Mapping> mappings;
  std::string skip_reason;  // non-empty: this machine cannot sample (the test skips)
  std::string error;        // non-empty: something that should work did not (the test fails)
};

// Starts program (which must print "ready" on stdout once its interesting stack is
// reached, then spin), samples it until `count` user samples arrived, kills it.
Capture capture_samples(const std::string& program, size_t count, uint32_t stack_bytes = 16384);

// Runs a shell command; "" on success, else what it printed.
std::string run_command(const std::string& command);

}  // namespace callprof::test_support

// Helpers for symbols_test: run a fixture program and read what it printed about
// itself, find marked lines in the fixture sources, temporary directories.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "symbols/symbolizer.h"

namespace callprof::test_support {

struct FixtureRun {
  std::vector<LoadedModule> modules;  // in dl_iterate_phdr order: the program first
  std::vector<uint64_t> entries;      // function entry addresses its hooks saw
  uint64_t return_address = 0;        // taken in a call made from inlined code
};

// Runs the program and parses its report; fails the current test when it cannot.
FixtureRun run_fixture(const std::string& program);

// Index of the module whose path ends with suffix, -1 if none.
int find_module(const std::vector<LoadedModule>& modules, const std::string& suffix);

// 1-based number of the line of source carrying marker (e.g. "@fn:compute"), 0 if none.
uint32_t marker_line(const std::string& source, const std::string& marker);

std::string base_name(const std::string& path);

// Symbolizer::create for tests: never asks a debuginfod server over the network, and
// reads every module's files (no symbol cache) unless `cache`.
std::unique_ptr<Symbolizer> make_symbolizer(std::vector<LoadedModule> modules, SymbolizerOptions options = {},
                                            bool cache = false);

}  // namespace callprof::test_support

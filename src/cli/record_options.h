// `callprof record`'s and `attach`'s options, registered on CLI11 into the typed structs
// of src/record/options.h (docs/modes.md lists them).
#pragma once

#include <CLI/CLI.hpp>

#include "record/options.h"

namespace callprof::cli {

// What `record` and `attach` parse: the recording's typed arguments and the CLI's own.
struct RecordCli {
  record::RecordArgs args;
  std::string mode = "auto";  // parsed by record::parse_mode after CLI11
  bool quiet = false;
};

void add_record_options(CLI::App& app, RecordCli& cli);
// Exact mode's measurements, filters and limits (record and attach; `attached`: without
// those that need the program started under callprof: --faults, --alloc, --libcalls).
void add_exact_options(CLI::App& app, record::RecordArgs& args, bool attached);
void add_sampling_options(CLI::App& app, record::SamplingArgs& args);
void add_syscall_options(CLI::App& app, record::SyscallArgs& args);
void add_probe_options(CLI::App& app, record::ProbeArgs& args);
// --timeline and its bounds (record and attach).
void add_timeline_options(CLI::App& app, record::RecordArgs& args);

// The long names of the options the user gave on `app` (CLI11's count, not a comparison
// with defaults): the session refuses those that do not apply to the mode.
std::vector<std::string> given_options(const CLI::App& app);

}  // namespace callprof::cli

// `record` and `attach` share their run: options into RecordArgs, one recording session,
// the exit status.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/record_options.h"

namespace callprof::cli {

// Parses the mode, notes which options `app` got, runs the session; returns the exit
// status (or ends like the launched program).
int run_recording(RecordCli& cli, const CLI::App& app);

}  // namespace callprof::cli

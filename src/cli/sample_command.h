// Sampling mode: `record --mode sample` (a launched program) and `attach PID`.
#pragma once

#include "cli/record_options.h"
#include "target/executable.h"

namespace callprof::cli {

int record_sampled(const RecordArgs& args, const ExecutableInfo& exe);

}  // namespace callprof::cli

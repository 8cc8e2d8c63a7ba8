// What exact mode's options become: the environment the runtime reads (docs/modes.md,
// "Runtime settings"), and the option values only the runtime interprets.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "record/options.h"
#include "util/result.h"

namespace callprof::record {

using Environment = std::vector<std::pair<std::string, std::string>>;
// The runtime's variables for these options; `plan_path` "" when there is no plan.
Result<Environment> runtime_environment(const RecordArgs& args, const std::string& plan_path);

// The timeline's bound on calls, in ns (validated --timeline-min-duration).
Result<uint64_t> timeline_min_ns(const RecordArgs& args);
// "USR2", "SIGUSR2", "12".
Result<int> parse_signal(const std::string& text);

}  // namespace callprof::record

// The cost of one probe hit on this machine, measured before recording (SPEC §1.3 "cost
// shown"): a function of callprof's own gets the same entry and exit probes as the
// target's, and is timed with them enabled and disabled.
#pragma once

#include <cstdint>

#include "collect/sampling/perf_options.h"
#include "util/result.h"

namespace callprof::probes {

// ns per hit (an entry or an exit), for probes opened with `options`' sample layout.
// Takes a few milliseconds.
Result<uint64_t> measure_probe_cost_ns(const sampling::SamplingOptions& options);

}  // namespace callprof::probes

// Which functions probe mode probes: the --probe patterns over the functions of the modules
// a target has (its executable and libraries), narrowed by --probe-module, capped.
#pragma once

#include <string>
#include <vector>

#include "collect/probes/probe_sites.h"
#include "util/result.h"

namespace callprof::probes {

struct ProbeRequest {
  std::vector<std::string> functions;  // RE2 patterns, searched in demangled and linkage names
  std::string modules;                 // RE2 pattern on module paths; "" for every module
  size_t limit = 1000;                 // functions probed at most
  bool return_probes = true;           // leaves exit through a return probe (probe_placement.h)
};

struct ProbePlan {
  std::vector<ProbeFunction> functions;
  size_t matched = 0;  // before the cap
  size_t sites() const;
};

// `modules`: file paths, the executable first. Errors: a bad pattern, no pattern, or no
// function matching; a module that cannot be read is skipped unless it is the only one.
Result<ProbePlan> plan_probes(const std::vector<std::string>& modules, const ProbeRequest& request);

}  // namespace callprof::probes

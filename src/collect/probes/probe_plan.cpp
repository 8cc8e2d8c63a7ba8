#include "collect/probes/probe_plan.h"

#include <algorithm>
#include <optional>

#include "util/strings.h"

namespace callprof::probes {

size_t ProbePlan::sites() const {
  size_t n = 0;
  for (const ProbeFunction& f : functions) n += 1 + f.returns + f.exit_offsets.size();
  return n;
}

Result<ProbePlan> plan_probes(const std::vector<std::string>& modules, const ProbeRequest& request) {
  if (request.functions.empty()) return make_error("probe mode needs --probe REGEX (the functions to probe)");
  // One pattern for all: a function is probed when any of them matches.
  std::string joined;
  for (const std::string& f : request.functions) joined += (joined.empty() ? "" : "|") + ("(?:" + f + ")");
  auto functions = Pattern::compile(joined, "--probe");
  if (!functions) return functions.error();
  std::optional<Pattern> module_pattern;
  if (!request.modules.empty()) {
    auto m = Pattern::compile(request.modules, "--probe-module");
    if (!m) return m.error();
    module_pattern = std::move(*m);
  }
  ProbePlan plan;
  std::vector<std::string> searched;
  for (const std::string& module : modules) {
    if (module_pattern && !module_pattern->search(module)) continue;
    searched.push_back(module);
    auto found = find_probe_functions(module, *functions, request.return_probes);
    if (!found) {
      if (modules.size() == 1) return found.error();
      continue;
    }
    plan.matched += found->size();
    for (ProbeFunction& f : *found)
      if (plan.functions.size() < request.limit) plan.functions.push_back(std::move(f));
  }
  if (searched.empty())
    return make_error("--probe-module '" + request.modules + "' matches none of the program's modules (" +
                      join(modules, ", ") + ")");
  if (plan.matched == 0)
    return make_error("--probe '" + join(request.functions, "' '") + "' matches no function with code in " +
                      join(searched, ", "));
  return plan;
}

}  // namespace callprof::probes

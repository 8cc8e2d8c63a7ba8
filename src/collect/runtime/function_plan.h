// The function plan `record` gives the exact-mode runtime: per module file, the ELF
// addresses of functions filtered out or chosen as checkpoints, so that the runtime never
// sees a name (format: docs/design.md, "Filters and checkpoints").
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace callprof {

struct FunctionSelection {
  std::vector<std::string> include;          // only functions whose name matches one of these
  std::vector<std::string> exclude;          // never functions whose name matches one of these
  std::vector<std::string> include_modules;  // only functions in modules whose path matches
  std::vector<std::string> exclude_modules;
  std::vector<std::string> checkpoints;  // exact names: "ns::f", "ns::f(int)" or the symbol
  bool empty() const {
    return include.empty() && exclude.empty() && include_modules.empty() && exclude_modules.empty() &&
           checkpoints.empty();
  }
};

struct FunctionPlan {
  std::string text;      // what the runtime reads
  size_t functions = 0;  // function symbols seen in the modules
  size_t excluded = 0;
  size_t checkpoints = 0;
  size_t sites = 0;               // hook call sites the runtime may rewrite
  size_t unrewritable_sites = 0;  // hook calls it may not (through the GOT, odd segments)
  size_t patchable_sections = 0;  // "p" lines
};

// What the plan lists of each module's code besides its functions.
struct PlanSites {
  // Its hook call sites (symbols/hook_call_sites.h), which the runtime rewrites into nops
  // once their function is folded or filtered out.
  bool hook_calls = false;
  // Its -fpatchable-function-entry sections, whose sites the runtime patches into calls as
  // the program starts (record of a program built to be attached; runtime/patched_calls.h).
  bool patchable_entries = false;
};

// `modules`: canonical paths of the instrumented program and its instrumented libraries.
// Errors: an invalid regular expression, a checkpoint that names no function.
Result<FunctionPlan> make_function_plan(const std::vector<std::string>& modules, const FunctionSelection& selection,
                                        PlanSites sites = {});

}  // namespace callprof

// Time rolled up by module (executable or shared object), from the function rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "graph/aggregate.h"
#include "model/profile.h"

namespace callprof {

struct ModuleRow {
  ModuleId module = kNoModule;  // kNoModule: functions with no known module
  uint64_t self_ns = 0;         // self time of the module's functions
  uint64_t calls = 0;           // calls of the module's functions
  size_t functions = 0;         // the module's functions present in the rows
  Metrics self;                 // every additive metric summed over its functions' self
};

// One row per module that has a function among `rows`, hottest (self) first.
std::vector<ModuleRow> module_rows(const Profile& profile, std::span<const FunctionRow> rows);

}  // namespace callprof

// Module roll-up: self time is additive across functions, so it sums exactly.
#include "graph/modules.h"

#include <algorithm>
#include <map>

namespace callprof {

std::vector<ModuleRow> module_rows(const Profile& profile, std::span<const FunctionRow> rows) {
  std::map<ModuleId, ModuleRow> by_module;
  for (const FunctionRow& r : rows) {
    ModuleId m = r.function < profile.functions.size() ? profile.functions[r.function].module : kNoModule;
    if (m != kNoModule && m >= profile.modules.size()) m = kNoModule;
    ModuleRow& row = by_module[m];
    row.module = m;
    row.self_ns += r.self_ns;
    row.calls += r.calls;
    row.self.add_sums(r.self);
    ++row.functions;
  }
  std::vector<ModuleRow> out;
  for (auto& [id, row] : by_module) out.push_back(row);
  std::stable_sort(out.begin(), out.end(),
                   [](const ModuleRow& a, const ModuleRow& b) { return a.self_ns > b.self_ns; });
  return out;
}

}  // namespace callprof

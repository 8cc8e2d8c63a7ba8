// Naming unnamed functions after the recording (see late_names.h).
#include "collect/runtime/late_names.h"

#include <map>

#include "collect/stacks/function_table.h"

namespace callprof {
namespace {

// The functions of one module that had no name, by id.
using Unnamed = std::map<ModuleId, std::vector<FunctionId>>;

Unnamed unnamed_by_module(const Profile& profile) {
  Unnamed out;
  for (FunctionId id = 0; id < profile.functions.size(); ++id)
    if (is_unnamed_function(profile, profile.functions[id])) out[profile.functions[id].module].push_back(id);
  return out;
}

// Resolves the module's functions with a symbolizer of its own: every module is looked at at
// its file addresses (bias 0), where they would overlap in one.
ModuleNaming name_module(Profile& profile, ModuleId id, const std::vector<FunctionId>& functions,
                         const SymbolizerOptions& options) {
  ModuleNaming out;
  out.module = id;
  out.unnamed = functions.size();
  const Module& module = profile.modules[id];
  auto symbolizer = Symbolizer::create({LoadedModule{module.path, 0, 0, 0, module.build_id}}, options);
  if (!symbolizer) {
    out.problems.push_back(symbolizer.error().message);
    return out;
  }
  for (FunctionId f : functions) {
    const SymbolInfo info = (*symbolizer)->resolve(profile.functions[f].address);
    if (info.name.empty()) continue;
    Function& named = profile.functions[f];
    named.name = info.name;
    named.linkage_name = info.linkage_name;
    named.file = info.file;
    named.line = info.line;
    ++out.named;
  }
  out.file = (*symbolizer)->file(0);
  out.debug_file = (*symbolizer)->debug_file(0);
  if (out.named < out.unnamed) out.problems = (*symbolizer)->warnings();
  return out;
}

}  // namespace

bool is_unnamed_function(const Profile& profile, const Function& f) {
  if (f.kind != FunctionKind::Normal || !f.linkage_name.empty() || f.module >= profile.modules.size()) return false;
  const std::string& path = profile.modules[f.module].path;
  return !path.empty() && path[0] != '[' && f.name == unnamed_function_label(path, f.address);
}

LateNaming name_unnamed_functions(Profile& profile, const SymbolizerOptions& options) {
  LateNaming out;
  for (const auto& [module, functions] : unnamed_by_module(profile))
    out.push_back(name_module(profile, module, functions, options));
  return out;
}

}  // namespace callprof

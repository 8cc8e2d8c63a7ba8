#include "collect/stacks/function_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "symbols/elf_functions.h"
#include "util/strings.h"

namespace callprof {

ModuleId FunctionTable::module(const std::string& path, const std::string& build_id) {
  auto [it, added] = modules_.try_emplace({path, build_id}, ModuleId(p_.modules.size()));
  if (added) p_.modules.push_back(Module{path, build_id});
  return it->second;
}

FunctionId FunctionTable::function(const SymbolInfo& s, ModuleId module, uint64_t runtime_address) {
  uint64_t address = module == kNoModule ? runtime_address : s.file_address;
  auto [it, added] = functions_.try_emplace({module, address}, FunctionId(p_.functions.size()));
  if (!added) return it->second;
  Function f;
  f.name = !s.name.empty()       ? s.name
           : module == kNoModule ? fmt::format("{:#x}", address)
                                 : unnamed_function_label(p_.modules[module].path, address);
  f.linkage_name = s.linkage_name;
  f.module = module;
  f.address = address;
  f.file = s.file;
  f.line = s.line;
  p_.functions.push_back(std::move(f));
  if (!s.linkage_name.empty()) by_linkage_.try_emplace({module, s.linkage_name}, it->second);
  return it->second;
}

std::optional<SymbolInfo> FunctionTable::cold_part_owner(ModuleId module, const SymbolInfo& s, uint64_t pc,
                                                         const std::function<std::string()>& symbols_file,
                                                         const std::function<SymbolInfo(uint64_t)>& resolve) {
  if (module == kNoModule || cold_part_owner_name(s.linkage_name).empty()) return std::nullopt;
  auto [it, added] = cold_parts_.try_emplace(module);
  if (added)
    if (const std::string file = symbols_file(); !file.empty()) it->second = cold_part_owners(file);
  const std::pair<uint64_t, uint64_t> part{s.file_address - s.offset, 0};
  const auto at = std::lower_bound(it->second.begin(), it->second.end(), part);
  if (at == it->second.end() || at->first != part.first) return std::nullopt;
  SymbolInfo owner = resolve(pc - s.file_address + at->second);
  if (owner.name.empty() || owner.offset != 0) return std::nullopt;
  return owner;
}

bool FunctionTable::source_lines_wanted() {
  const char* off = std::getenv("CALLPROF_NO_LINES");
  return off == nullptr || std::string_view(off) != "1";
}

FunctionId FunctionTable::inlined(const SymbolInfo& s, ModuleId module) {
  if (auto it = by_linkage_.find({module, s.linkage_name}); !s.linkage_name.empty() && it != by_linkage_.end())
    return it->second;
  const FunctionId id = named(s.name, module, 0);
  Function& f = p_.functions[id];
  if (f.file.empty()) f.file = s.file, f.line = s.line;
  return id;
}

FunctionId FunctionTable::named(const std::string& name, ModuleId module, uint64_t address, FunctionKind kind) {
  auto [it, added] = named_.try_emplace({module, name}, FunctionId(p_.functions.size()));
  if (!added) return it->second;
  Function f;
  f.name = name;
  f.linkage_name = name;
  f.module = module;
  f.address = address;
  f.kind = kind;
  p_.functions.push_back(std::move(f));
  return it->second;
}

std::string unnamed_function_label(const std::string& module_path, uint64_t address) {
  return fmt::format("{}+{:#x}", base_name(module_path), address);
}

std::shared_ptr<Symbolizer> SymbolizerCache::get(const std::vector<LoadedModule>& modules, std::string& error) {
  std::string key;
  for (const LoadedModule& m : modules)
    key += m.path + '\n' + std::to_string(m.bias) + ' ' + std::to_string(m.start) + ' ' + std::to_string(m.end) + ' ' +
           m.build_id + '\n';
  auto [it, added] = by_layout_.try_emplace(key);
  if (added) {
    auto s = Symbolizer::create(modules);
    if (s)
      it->second.symbolizer = std::move(s.value());
    else
      it->second.error = s.error().message;
  }
  error = it->second.error;
  return it->second.symbolizer;
}

}  // namespace callprof

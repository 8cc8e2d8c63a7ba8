#include "collect/runtime/process_symbols.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "collect/runtime/call_kind.h"
#include "util/strings.h"

namespace callprof {

ModuleId FunctionTable::module(const RawModule& m) {
  auto [it, added] = modules_.try_emplace({m.path, m.build_id}, ModuleId(p_.modules.size()));
  if (added) p_.modules.push_back(Module{m.path, m.build_id});
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

ProcessSymbols::ProcessSymbols(const RawProcessDump& d, FunctionTable& table, SymbolizerCache& symbolizers)
    : table_(table) {
  std::vector<LoadedModule> mods;
  for (const RawModule& m : d.modules) {
    mods.push_back(LoadedModule{m.path, m.bias, m.start, m.end, m.build_id});
    module_ids_.push_back(table.module(m));
  }
  std::string error;
  symbolizer_ = symbolizers.get(mods, error);
  if (!error.empty()) warnings_.push_back(error);
  for (const RawLibCall& l : d.libcalls) libcalls_[l.id] = &l;
}

FunctionId ProcessSymbols::function(uint64_t address) {
  auto [it, added] = cache_.try_emplace(address, kNoFunction);
  if (!added) return it->second;
  if (address == wire::kPrunedFn) return it->second = table_.named("[pruned]", kNoModule, 0, FunctionKind::Pruned);
  if (auto l = libcalls_.find(address); l != libcalls_.end()) {
    const RawLibCall& call = *l->second;
    SymbolInfo s = symbolizer_ ? symbolizer_->resolve(call.target) : SymbolInfo{};
    ModuleId m = module_of(s);
    return it->second = table_.named(demangle(call.name), m, m == kNoModule ? call.target : s.file_address);
  }
  SymbolInfo s = symbolizer_ ? symbolizer_->resolve(address) : SymbolInfo{};
  return it->second = table_.function(s, module_of(s), address);
}

std::vector<ProcessSymbols::Frame> ProcessSymbols::frames_at(uint64_t pc) {
  const std::vector<SymbolInfo> chain = symbolizer_ ? symbolizer_->resolve_inlined(pc) : std::vector<SymbolInfo>{};
  if (chain.empty() || chain.back().module < 0) return {};
  std::vector<Frame> out;
  SymbolInfo entry = chain.back();  // innermost first: the last is the function that ran here
  entry.file_address -= entry.offset;
  const ModuleId module = module_of(entry);
  const uint64_t address = chain.back().file_address;
  const FunctionId real = table_.function(entry, module, pc - entry.offset);
  out.push_back({real, false, table_.location(real, address, chain.back())});
  for (size_t i = chain.size() - 1; i-- > 0;) {
    if (chain[i].name.empty()) continue;
    const FunctionId f = table_.inlined(chain[i], module);
    out.push_back({f, true, table_.location(f, address, chain[i])});
  }
  return out;
}

LocationId ProcessSymbols::call_site(uint64_t return_address, FunctionId caller) {
  if (return_address == 0 || caller == kNoFunction || !table_.records_lines()) return kNoLocation;
  auto [it, added] = call_sites_.try_emplace({return_address, caller}, kNoLocation);
  if (!added) return it->second;
  // Inside the call instruction: the return address may be the next line's first byte.
  for (const Frame& f : frames_at(return_address - 1))
    if (f.function == caller) it->second = f.location;
  return it->second;
}

bool ProcessSymbols::indirect_call(uint64_t return_address) {
  if (return_address == 0 || !symbolizer_) return false;
  auto [it, added] = call_kinds_.try_emplace(return_address, false);
  if (added) it->second = classify_call(symbolizer_->code_before(return_address, 8)) == CallKind::Indirect;
  return it->second;
}

std::vector<std::string> ProcessSymbols::warnings() const {
  std::vector<std::string> w = warnings_;
  if (symbolizer_) w.insert(w.end(), symbolizer_->warnings().begin(), symbolizer_->warnings().end());
  return w;
}

}  // namespace callprof

#include "collect/runtime/process_symbols.h"

#include "collect/runtime/call_kind.h"

namespace callprof {

ProcessSymbols::ProcessSymbols(const RawProcessDump& d, FunctionTable& table, SymbolizerCache& symbolizers)
    : table_(table) {
  std::vector<LoadedModule> mods;
  for (const RawModule& m : d.modules) {
    if (m.path == wire::kStubModulePath) {
      stubs_.emplace_back(m.start, m.end);
      continue;
    }
    mods.push_back(LoadedModule{m.path, m.bias, m.start, m.end, m.build_id});
    module_ids_.push_back(table.module(m.path, m.build_id));
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
  std::vector<SymbolInfo> chain = symbolizer_ ? symbolizer_->resolve_inlined(pc) : std::vector<SymbolInfo>{};
  if (chain.empty() || chain.back().module < 0) return {};
  std::vector<Frame> out;
  SymbolInfo& entry = chain.back();  // innermost first: the last is the function that ran here
  const uint64_t address = entry.file_address;
  const ModuleId module = module_of(entry);
  const auto symbols_file = [&] { return symbolizer_->symbols_file(size_t(entry.module)); };
  const auto resolve = [&](uint64_t a) { return symbolizer_->resolve(a); };
  // A frame in a cold part is its function's (FunctionTable::cold_part_owner).
  const std::optional<SymbolInfo> owner = table_.cold_part_owner(module, entry, pc, symbols_file, resolve);
  entry.file_address -= entry.offset;  // the function's start, which names it
  const FunctionId real = table_.function(owner ? *owner : entry, module, pc - entry.offset);
  out.push_back({real, false, table_.location(real, address, entry)});
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

bool ProcessSymbols::in_runtime_stub(uint64_t pc) const {
  for (const auto& [start, end] : stubs_)
    if (pc >= start && pc < end) return true;
  return false;
}

std::vector<std::string> ProcessSymbols::warnings() const {
  std::vector<std::string> w = warnings_;
  if (symbolizer_) w.insert(w.end(), symbolizer_->warnings().begin(), symbolizer_->warnings().end());
  return w;
}

}  // namespace callprof

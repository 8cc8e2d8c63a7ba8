// Naming the addresses of the runtime's dumps: ProcessSymbols resolves one process image's
// addresses into the recording's one FunctionTable (collect/stacks/function_table.h; library
// calls and [pruned] by name) and tells direct from indirect call sites.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collect/runtime/raw_dump_reader.h"
#include "collect/stacks/function_table.h"
#include "model/profile.h"
#include "symbols/symbolizer.h"

namespace callprof {

// Resolves the addresses of one process image into the recording's function table.
class ProcessSymbols {
 public:
  ProcessSymbols(const RawProcessDump& d, FunctionTable& table, SymbolizerCache& symbolizers);

  FunctionId function(uint64_t address);
  // "[unhooked calls]" (FunctionKind::Unhooked).
  FunctionId unhooked_calls() { return table_.named("[unhooked calls]", kNoModule, 0, FunctionKind::Unhooked); }
  // The frames at a sampled address, outermost first: the function that ran there (by its
  // entry: the same id as its calls' nodes) and those DWARF says were inlined into it there
  // (FunctionTable::inlined, flagged inlined). Empty outside every module.
  struct Frame {
    FunctionId function;
    bool inlined;
    LocationId location;  // pc in this frame's function, with its line there
  };
  std::vector<Frame> frames_at(uint64_t pc);
  // Where in `caller` the call returning to `return_address` was made (kNoLocation when the
  // address is not in its code, or inside code inlined into it from elsewhere).
  LocationId call_site(uint64_t return_address, FunctionId caller);
  // Whether the call that returns to `return_address` went through a pointer.
  bool indirect_call(uint64_t return_address);
  // Whether `pc` is in one of the runtime's stub pages near a patched program (the
  // profiler's own code, outside every module).
  bool in_runtime_stub(uint64_t pc) const;
  std::vector<std::string> warnings() const;

 private:
  ModuleId module_of(const SymbolInfo& s) const { return s.module >= 0 ? module_ids_[size_t(s.module)] : kNoModule; }

  FunctionTable& table_;
  std::shared_ptr<Symbolizer> symbolizer_;  // shared with images of the same layout
  std::vector<ModuleId> module_ids_;
  std::vector<std::pair<uint64_t, uint64_t>> stubs_;  // [start, end) of the stub pages
  // Asked once per node of every thread's tree: hashed, not ordered.
  absl::flat_hash_map<uint64_t, FunctionId> cache_;
  std::map<uint64_t, const RawLibCall*> libcalls_;
  absl::flat_hash_map<uint64_t, bool> call_kinds_;
  absl::flat_hash_map<std::pair<uint64_t, FunctionId>, LocationId> call_sites_;
  std::vector<std::string> warnings_;
};

}  // namespace callprof

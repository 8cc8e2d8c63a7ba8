// Naming the addresses of the runtime's dumps. One FunctionTable per recording maps
// (module, ELF address) to a FunctionId, so the same function in several processes is one
// function; ProcessSymbols resolves one process image's addresses into it (library calls
// and [pruned] by name) and tells direct from indirect call sites.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collect/runtime/raw_dump_reader.h"
#include "model/profile.h"
#include "symbols/symbolizer.h"

namespace callprof {

// The name of a function that has none: "<module file name>+0x<address>" (the address its
// ELF file gives it), or "0x<address>" outside every module. Late naming (late_names.h)
// recognises these.
std::string unnamed_function_label(const std::string& module_path, uint64_t address);

class FunctionTable {
 public:
  explicit FunctionTable(Profile& p) : p_(p) {}

  ModuleId module(const RawModule& m);
  FunctionId function(const SymbolInfo& s, ModuleId module, uint64_t runtime_address);
  // A function known by name rather than by its own symbol: a library call (named after
  // the imported symbol, whatever implementation it resolved to) or "[pruned]".
  FunctionId named(const std::string& name, ModuleId module, uint64_t address,
                   FunctionKind kind = FunctionKind::Normal);
  // A function DWARF says was inlined at a sampled address: the function itself where the
  // table has its out-of-line copy (same module and linkage name), else one by name.
  FunctionId inlined(const SymbolInfo& s, ModuleId module);
  // The place `s` (a frame at module-relative `address`) is at in `function`: its line there.
  LocationId location(FunctionId function, uint64_t address, const SymbolInfo& s) {
    return lines_ ? locations_.add(function, address, s.pc_file, s.pc_line) : kNoLocation;
  }
  // False with CALLPROF_NO_LINES=1: no source lines recorded (bench/realprograms/lines.sh
  // measures what they cost).
  bool records_lines() const { return lines_; }

 private:
  Profile& p_;
  LocationTable locations_{p_};
  const bool lines_ = source_lines_wanted();
  static bool source_lines_wanted();
  std::map<std::pair<std::string, std::string>, ModuleId> modules_;
  std::map<std::pair<ModuleId, uint64_t>, FunctionId> functions_;
  std::map<std::pair<ModuleId, std::string>, FunctionId> named_;
  std::map<std::pair<ModuleId, std::string>, FunctionId> by_linkage_;  // functions by their own symbol
};

// Symbolizers shared by the process images of one recording that have the same modules at
// the same addresses (forked children of one image): opening an image's ELF and DWARF cost
// ~43 ms per process, 8.7 s after a program that forked 200 children.
class SymbolizerCache {
 public:
  // The symbolizer of this module layout, created on first use; null with `error` set when
  // it could not be created (remembered too).
  std::shared_ptr<Symbolizer> get(const std::vector<LoadedModule>& modules, std::string& error);

 private:
  struct Entry {
    std::shared_ptr<Symbolizer> symbolizer;
    std::string error;
  };
  std::map<std::string, Entry> by_layout_;
};

// Resolves the addresses of one process image into the recording's function table.
class ProcessSymbols {
 public:
  ProcessSymbols(const RawProcessDump& d, FunctionTable& table, SymbolizerCache& symbolizers);

  FunctionId function(uint64_t address);
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
  std::vector<std::string> warnings() const;

 private:
  ModuleId module_of(const SymbolInfo& s) const { return s.module >= 0 ? module_ids_[size_t(s.module)] : kNoModule; }

  FunctionTable& table_;
  std::shared_ptr<Symbolizer> symbolizer_;  // shared with images of the same layout
  std::vector<ModuleId> module_ids_;
  std::map<uint64_t, FunctionId> cache_;
  std::map<uint64_t, const RawLibCall*> libcalls_;
  std::map<uint64_t, bool> call_kinds_;
  std::map<std::pair<uint64_t, FunctionId>, LocationId> call_sites_;
  std::vector<std::string> warnings_;
};

}  // namespace callprof

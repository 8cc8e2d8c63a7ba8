// The one function table of a recording: (module, ELF address) to a FunctionId, so that the
// same function is one function whichever source met it (the runtime's dumps, samples,
// system calls' and probe hits' stacks) and in however many processes. Exact mode's nodes,
// the samples placed under them and the stacks' frames are named through it, which is what
// lets them meet by identity, never by name.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/code_lines.h"
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

  // A module by its file: the same path and build id is the same module.
  ModuleId module(const std::string& path, const std::string& build_id);
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
  // GCC's cold part of a function (NAME.cold: its unlikely paths, linked apart) runs on the
  // function's frame, which its caller called, so a frame there is the function's. For `s`,
  // the real function at runtime address `pc` of `module`: the function whose cold part it
  // is, as `resolve` names its entry (a runtime address), found by the symbols of the file
  // `symbols_file` names (asked once per module, when a part is first met); none when `s` is
  // no cold part or the file does not say.
  std::optional<SymbolInfo> cold_part_owner(ModuleId module, const SymbolInfo& s, uint64_t pc,
                                            const std::function<std::string()>& symbols_file,
                                            const std::function<SymbolInfo(uint64_t)>& resolve);
  // False with CALLPROF_NO_LINES=1: no source lines recorded (bench/realprograms/lines.sh
  // measures what they cost).
  bool records_lines() const { return lines_; }

 private:
  Profile& p_;
  LocationTable locations_{p_};
  const bool lines_ = source_lines_wanted();
  static bool source_lines_wanted();
  // Looked up once per node and frame: hashed, never walked in order.
  absl::flat_hash_map<std::pair<std::string, std::string>, ModuleId> modules_;
  absl::flat_hash_map<std::pair<ModuleId, uint64_t>, FunctionId> functions_;
  absl::flat_hash_map<std::pair<ModuleId, std::string>, FunctionId> named_;
  absl::flat_hash_map<std::pair<ModuleId, std::string>, FunctionId> by_linkage_;  // functions by their own symbol
  absl::flat_hash_map<ModuleId, std::vector<std::pair<uint64_t, uint64_t>>> cold_parts_;  // (part, owner), sorted
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

}  // namespace callprof

// Naming the addresses of sampled stacks (SampleCollector::build): per process image and
// address, the frames it stands for, outermost first: the function that ran there and the
// functions DWARF says were inlined into it at that address, flagged as inlined (or, with
// inlined frames off, the function alone, as perf --no-inline attributes).
//
// An inlined function is the function itself, so it takes the id of its out-of-line copy
// wherever the recording saw that copy (same module, same linkage name, else same name):
// per-function views then add both up. Inlined frames are named last, after every image's
// real frames, so the answer does not depend on which image came first.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collect/stacks/address_symbols.h"
#include "collect/stacks/function_table.h"
#include "model/profile.h"

namespace callprof::stacks {

struct Frame {
  FunctionId function = kNoFunction;
  bool inlined = false;               // inlined into the frame before it (its caller)
  LocationId location = kNoLocation;  // the address and its line in this frame's function
};

class FrameNames {
 public:
  FrameNames(Profile& profile, FunctionTable& table, AddressSymbols& symbols, bool inlined_frames);

  // A process image whose addresses follow: its symbols (null: none resolve), the ids of its
  // modules (indexed by SymbolInfo::module), its mappings (to name regions outside files) and
  // the kernel's module. Returns the image's index for add() and frames().
  size_t add_image(std::shared_ptr<ImageSymbols> symbols, std::vector<ModuleId> module_ids,
                   const std::vector<perf::Mapping>& mappings, ModuleId kernel_module);
  // Names `pc` (a lookup address) of the image, once; its real frame gets its id at once.
  void add(size_t image, uint64_t pc);
  // Gives the inlined frames their ids; call after every add(), before frames().
  void finish();
  // The frames at an added address, outermost first.
  std::span<const Frame> frames(size_t image, uint64_t pc) const;

 private:
  struct Pending {  // an inlined frame waiting for finish()
    size_t image;
    uint64_t pc;
    size_t index;  // into that address's frames
    SymbolInfo symbol;
    ModuleId module;
    uint64_t address;  // module-relative
  };
  struct Image {
    std::shared_ptr<ImageSymbols> symbols;
    std::vector<ModuleId> module_ids;
    const std::vector<perf::Mapping>* mappings;
    ModuleId kernel_module;
    std::unordered_map<uint64_t, std::vector<Frame>> frames;
  };
  FunctionId real_function(const SymbolInfo& s, ModuleId module, uint64_t pc);
  FunctionId inlined_function(const SymbolInfo& s, ModuleId module);

  Profile& profile_;
  FunctionTable& table_;
  AddressSymbols& symbols_;
  const bool inlined_frames_;
  std::vector<Image> images_;
  std::vector<Pending> pending_;
  // The real functions seen, by (module, "L" + linkage name) and (module, "N" + name).
  std::map<std::pair<ModuleId, std::string>, FunctionId> by_name_;
};

}  // namespace callprof::stacks

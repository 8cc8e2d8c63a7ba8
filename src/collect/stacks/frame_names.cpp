// Naming sampled addresses (see frame_names.h).
#include "collect/stacks/frame_names.h"

#include "collect/stacks/kernel_symbols.h"

namespace callprof::stacks {
namespace {

std::string region_name(const std::vector<perf::Mapping>& mappings, uint64_t pc) {
  for (const perf::Mapping& m : mappings)
    if (pc >= m.start && pc < m.end) return m.path.empty() ? "[anonymous]" : m.path[0] == '[' ? m.path : "[unknown]";
  return "[unknown]";
}

}  // namespace

FrameNames::FrameNames(Profile& profile, FunctionTable& table, AddressSymbols& symbols, bool inlined_frames)
    : profile_(profile), table_(table), symbols_(symbols), inlined_frames_(inlined_frames) {}

size_t FrameNames::add_image(std::shared_ptr<ImageSymbols> symbols, std::vector<ModuleId> module_ids,
                             const std::vector<perf::Mapping>& mappings, ModuleId kernel_module) {
  images_.push_back(Image{std::move(symbols), std::move(module_ids), &mappings, kernel_module, {}});
  return images_.size() - 1;
}

void FrameNames::add(size_t image, uint64_t pc) {
  Image& im = images_[image];
  auto [it, added] = im.frames.try_emplace(pc);
  if (!added) return;
  std::vector<Frame>& out = it->second;
  if (is_kernel_address(pc)) {
    const std::string n = symbols_.kernel_name(pc);
    out.push_back({table_.named(n.empty() ? "[kernel]" : n, im.kernel_module, 0, FunctionKind::Kernel)});
    return;
  }
  const std::vector<SymbolInfo> chain = im.symbols ? im.symbols->resolve_inlined(pc) : std::vector<SymbolInfo>{};
  if (chain.empty() || (chain.size() == 1 && chain[0].module < 0)) {
    // Outside every file: the vDSO, JIT code, anonymous memory: named after the region.
    out.push_back({table_.named(region_name(*im.mappings, pc), kNoModule, 0)});
    return;
  }
  auto module_of = [&](const SymbolInfo& s) { return s.module >= 0 ? im.module_ids[size_t(s.module)] : kNoModule; };
  // The chain is innermost first; its last entry is the function that really ran here.
  const SymbolInfo& real = chain.back();
  // A function is identified by its entry, not by the sampled pc; without a name, by the
  // start of its unwind range (symbolizer.h), so a stripped function is one row.
  SymbolInfo entry = real;
  entry.file_address -= entry.offset;
  const auto symbols_file = [&] { return im.symbols->symbols_file(real.module); };
  const auto resolve = [&](uint64_t address) {
    std::vector<SymbolInfo> chain = im.symbols->resolve_inlined(address);
    return chain.empty() ? SymbolInfo{} : chain.back();
  };
  // A frame in a cold part is its function's (FunctionTable::cold_part_owner).
  const std::optional<SymbolInfo> owner = table_.cold_part_owner(module_of(real), real, pc, symbols_file, resolve);
  const FunctionId function = real_function(owner ? *owner : entry, module_of(real), pc - real.offset);
  // Its own line at pc: where inlined code runs, the line of the inlined call.
  out.push_back({function, false, table_.location(function, real.file_address, real)});
  if (!inlined_frames_) return;
  for (size_t k = chain.size() - 1; k-- > 0;) {
    if (chain[k].name.empty()) continue;  // DWARF names no function: nothing to show
    out.push_back({kNoFunction, true});
    pending_.push_back({image, pc, out.size() - 1, chain[k], module_of(chain[k]), real.file_address});
  }
}

FunctionId FrameNames::real_function(const SymbolInfo& s, ModuleId module, uint64_t pc) {
  const FunctionId id = table_.function(s, module, pc);
  if (!s.name.empty()) {  // the first function of a name keeps it: ids do not depend on map order
    if (!s.linkage_name.empty()) by_name_.try_emplace({module, "L" + s.linkage_name}, id);
    by_name_.try_emplace({module, "N" + s.name}, id);
  }
  return id;
}

// Its out-of-line copy when the recording has one, else a function known by name, with the
// declaration's place (an inlined function has no entry address of its own).
FunctionId FrameNames::inlined_function(const SymbolInfo& s, ModuleId module) {
  for (const std::string& key : {"L" + s.linkage_name, "N" + s.name})
    if (auto it = by_name_.find({module, key}); key.size() > 1 && it != by_name_.end()) return it->second;
  const FunctionId id = table_.named(s.name, module, 0);
  Function& f = profile_.functions[id];
  if (f.file.empty()) {
    f.file = s.file;
    f.line = s.line;
  }
  if (!s.linkage_name.empty()) f.linkage_name = s.linkage_name;
  return id;
}

void FrameNames::finish() {
  for (const Pending& p : pending_) {
    Frame& f = images_[p.image].frames[p.pc][p.index];
    f.function = inlined_function(p.symbol, p.module);
    f.location = table_.location(f.function, p.address, p.symbol);
  }
  pending_.clear();
}

std::span<const Frame> FrameNames::frames(size_t image, uint64_t pc) const {
  const auto& frames = images_[image].frames;
  auto it = frames.find(pc);
  return it == frames.end() ? std::span<const Frame>{} : std::span<const Frame>(it->second);
}

}  // namespace callprof::stacks

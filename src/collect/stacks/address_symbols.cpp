// The real AddressSymbols: the mapped files and /proc/kallsyms (see header).
#include "collect/stacks/address_symbols.h"

#include "collect/stacks/function_table.h"
#include "collect/stacks/kernel_symbols.h"
#include "collect/stacks/unwinder_elf.h"

namespace callprof::stacks {
namespace {

class SymbolizerImage : public ImageSymbols {
 public:
  explicit SymbolizerImage(std::shared_ptr<Symbolizer> symbolizer) : symbolizer_(std::move(symbolizer)) {}
  std::vector<SymbolInfo> resolve_inlined(uint64_t pc) override { return symbolizer_->resolve_inlined(pc); }
  const std::vector<std::string>& warnings() const override { return symbolizer_->warnings(); }
  std::string symbols_file(int module) const override { return symbolizer_->symbols_file(size_t(module)); }

 private:
  std::shared_ptr<Symbolizer> symbolizer_;
};

class FileAddressSymbols : public AddressSymbols {
 public:
  Result<uint64_t> load_bias(const perf::Mapping& mapping) override { return mapping_load_bias(mapping); }

  std::shared_ptr<ImageSymbols> image(const std::vector<LoadedModule>& modules, std::string& error) override {
    std::shared_ptr<Symbolizer> symbolizer = symbolizers_.get(modules, error);
    if (!symbolizer) return nullptr;
    return std::make_shared<SymbolizerImage>(std::move(symbolizer));
  }

  std::string kernel_name(uint64_t address) override {
    static const KernelSymbols kernel = KernelSymbols::load();  // only when there are kernel frames
    return std::string(kernel.name(address));
  }

 private:
  SymbolizerCache symbolizers_;
};

}  // namespace

std::unique_ptr<AddressSymbols> file_address_symbols() { return std::make_unique<FileAddressSymbols>(); }

}  // namespace callprof::stacks

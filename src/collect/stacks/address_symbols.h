// What the stack engine (SampleCollector) asks about addresses when it builds the profile:
// the load bias of a mapped file, the functions at an address of a process image (inline
// chain included), and kernel function names. The real answers open ELF/DWARF files and
// /proc/kallsyms; unit tests inject fakes (tests/unit/stacks/sample_collector_test.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collect/perf/perf_records.h"
#include "symbols/symbolizer.h"
#include "util/result.h"

namespace callprof::stacks {

// The addresses of one process image, whose modules were given to AddressSymbols::image().
class ImageSymbols {
 public:
  virtual ~ImageSymbols() = default;
  // As Symbolizer::resolve_inlined: innermost first, SymbolInfo::module indexes the modules.
  virtual std::vector<SymbolInfo> resolve_inlined(uint64_t pc) = 0;
  // Problems worth telling the user, one line each; read after resolving.
  virtual const std::vector<std::string>& warnings() const = 0;
  // As Symbolizer::symbols_file: the file whose symbol table names module `module`'s functions.
  virtual std::string symbols_file(int module) const = 0;
};

class AddressSymbols {
 public:
  virtual ~AddressSymbols() = default;
  // The load bias a file mapping implies (mapping_load_bias: opens the file).
  virtual Result<uint64_t> load_bias(const perf::Mapping& mapping) = 0;
  // The symbols of an image with these modules; null with `error` set when there are none.
  virtual std::shared_ptr<ImageSymbols> image(const std::vector<LoadedModule>& modules, std::string& error) = 0;
  // The kernel function containing `address`, "" when unknown.
  virtual std::string kernel_name(uint64_t address) = 0;
};

// The real answers: the files' ELF and DWARF (one symbolizer per module layout, shared by
// forked images) and /proc/kallsyms (read once per process, on the first kernel frame).
std::unique_ptr<AddressSymbols> file_address_symbols();

}  // namespace callprof::stacks

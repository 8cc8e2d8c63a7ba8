// Every function symbol an ELF file defines (its .symtab, else .dynsym), for choosing
// functions by name before a program runs (filters, checkpoints).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace callprof {

struct ElfFunction {
  uint64_t address;          // ELF virtual address of the entry
  std::string linkage_name;  // as in the symbol table
  std::string name;          // demangled
  uint64_t size = 0;         // bytes of code, 0 when the symbol does not say
  bool indirect = false;     // a GNU indirect function: the address is its resolver's
};

Result<std::vector<ElfFunction>> elf_functions(const std::string& path);

}  // namespace callprof

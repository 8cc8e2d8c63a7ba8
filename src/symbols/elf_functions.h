// Every function symbol an ELF file defines (its .symtab, else .dynsym), for choosing
// functions by name before a program runs (filters, checkpoints).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
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

// GCC moves a function's unlikely code (its catch blocks, say) to a part of its own named
// "NAME.cold" (older GCC: "NAME.cold.N"), which runs on NAME's frame: each such part's
// address with NAME's (ELF virtual addresses, by the part's), from the file's .symtab, read
// without demangling. A part whose NAME the table lacks, or holds twice (two static
// functions of that name), has none. Empty when the file cannot be read.
std::vector<std::pair<uint64_t, uint64_t>> cold_part_owners(const std::string& path);
// NAME of a cold part's symbol "NAME.cold" or "NAME.cold.N"; empty for any other name.
std::string_view cold_part_owner_name(std::string_view symbol);

}  // namespace callprof

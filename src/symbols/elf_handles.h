// RAII owners for the elfutils handles the symbolizer uses, and build-id helpers.
// Internal to src/symbols.
#pragma once

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

#include "util/result.h"

namespace callprof::symbols_detail {

struct DwflDeleter {
  void operator()(Dwfl* dwfl) const noexcept { dwfl_end(dwfl); }
};
using DwflPtr = std::unique_ptr<Dwfl, DwflDeleter>;

// For the arrays libdw hands over with malloc (dwarf_getscopes and friends).
struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};
template <typename T>
using MallocPtr = std::unique_ptr<T, FreeDeleter>;

// Calls fn(scn, header, name) for each section of the module's main ELF file (name null
// when unreadable); nothing when the file or its section names cannot be read.
template <typename Fn>
void for_each_section(Dwfl_Module* mod, Fn fn) {
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(mod, &bias);
  size_t names = 0;
  if (elf == nullptr || elf_getshdrstrndx(elf, &names) != 0) return;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) != nullptr) fn(scn, sh, elf_strptr(elf, names, sh.sh_name));
  }
}

std::string to_hex(const unsigned char* bytes, size_t size);

// The GNU build id of the ELF file at path, lowercase hex, "" when it has none;
// an Error when the file cannot be opened, is not a regular file or is not ELF.
Result<std::string> file_build_id(const std::string& path);

}  // namespace callprof::symbols_detail

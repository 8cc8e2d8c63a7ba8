// The function symbols a symbol table section defines (.symtab or .dynsym): STT_FUNC and
// STT_GNU_IFUNC symbols that are not undefined. Shared by elf_functions (choosing functions
// by name) and stripped_modules (counting what a stripped file still names).
#pragma once

#include <gelf.h>

namespace callprof {

// Calls fn(sym) for each; stops at the first symbol libelf cannot read.
template <typename Fn>
void for_each_function_symbol(Elf_Scn* scn, const GElf_Shdr& sh, Fn fn) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr || sh.sh_entsize == 0) return;
  for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) return;
    const int type = GELF_ST_TYPE(sym.st_info);
    if ((type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_shndx != SHN_UNDEF) fn(sym);
  }
}

}  // namespace callprof

#include "symbols/elf_functions.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>

#include "symbols/elf_function_symbols.h"
#include "symbols/symbolizer.h"

namespace callprof {
namespace {

// The functions of one symbol table section; false when the file has no such section.
bool read_section(Elf* elf, Elf64_Word type, std::vector<ElfFunction>& out) {
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0) continue;
    for_each_function_symbol(scn, sh, [&](const GElf_Sym& sym) {
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (sym.st_value == 0 || !name || !*name) return;
      out.push_back(
          ElfFunction{sym.st_value, name, demangle(name), sym.st_size, GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC});
    });
    return true;
  }
  return false;
}

}  // namespace

Result<std::vector<ElfFunction>> elf_functions(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open " + path + ": " + std::strerror(errno));
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    if (elf) elf_end(elf);
    close(fd);
    return make_error(path + " is not an ELF file");
  }
  std::vector<ElfFunction> out;
  if (!read_section(elf, SHT_SYMTAB, out)) read_section(elf, SHT_DYNSYM, out);
  elf_end(elf);
  close(fd);
  return out;
}

}  // namespace callprof

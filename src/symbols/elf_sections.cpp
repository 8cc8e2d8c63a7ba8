#include "symbols/elf_sections.h"

#include <gelf.h>

#include <cstring>

#include "symbols/elf_file.h"

namespace callprof {

Result<std::vector<std::pair<uint64_t, uint64_t>>> allocated_sections(const std::string& path, const char* name) {
  auto file = ElfFile::open(path);
  if (!file) return file.error();
  std::vector<std::pair<uint64_t, uint64_t>> out;
  size_t names = 0;
  if (elf_getshdrstrndx(file->elf(), &names) != 0) return make_error(path + ": no section names");
  for (Elf_Scn* scn = elf_nextscn(file->elf(), nullptr); scn; scn = elf_nextscn(file->elf(), scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0) continue;
    const char* found = elf_strptr(file->elf(), names, sh.sh_name);
    if (found && std::strcmp(found, name) == 0) out.emplace_back(sh.sh_addr, sh.sh_addr + sh.sh_size);
  }
  return out;
}

}  // namespace callprof

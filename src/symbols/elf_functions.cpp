#include "symbols/elf_functions.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

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

// Opens `path` as ELF for reading: null when it is none.
Elf* open_elf(const std::string& path, int* fd) {
  *fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd < 0) return nullptr;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(*fd, ELF_C_READ_MMAP, nullptr);
  if (elf && elf_kind(elf) == ELF_K_ELF) return elf;
  if (elf) elf_end(elf);
  close(*fd);
  return nullptr;
}

}  // namespace

std::string_view cold_part_owner_name(std::string_view symbol) {
  const size_t at = symbol.rfind(".cold");
  if (at == std::string_view::npos || at == 0) return {};
  const std::string_view rest = symbol.substr(at + 5);
  if (!rest.empty() && (rest[0] != '.' || rest.size() == 1 ||
                        !std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; })))
    return {};
  return symbol.substr(0, at);
}

std::vector<std::pair<uint64_t, uint64_t>> cold_part_owners(const std::string& path) {
  int fd = -1;
  Elf* elf = open_elf(path, &fd);
  if (!elf) return {};
  std::vector<std::pair<std::string_view, uint64_t>> parts;  // owner's name, part's address
  std::unordered_map<std::string_view, uint64_t> owners;     // name -> address; 0: twice
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB) continue;
    for_each_function_symbol(scn, sh, [&](const GElf_Sym& sym) {
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (!name || !*name || sym.st_value == 0) return;
      if (const std::string_view owner = cold_part_owner_name(name); !owner.empty()) {
        parts.emplace_back(owner, sym.st_value);
        return;
      }
      const auto [at, added] = owners.try_emplace(name, sym.st_value);
      if (!added && at->second != sym.st_value) at->second = 0;
    });
  }
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [owner, part] : parts)
    if (const auto at = owners.find(owner); at != owners.end() && at->second != 0) out.emplace_back(part, at->second);
  elf_end(elf);  // the names above point into its mapping: used up before this
  close(fd);
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<ElfFunction>> elf_functions(const std::string& path) {
  int fd = -1;
  Elf* elf = open_elf(path, &fd);
  if (!elf)
    return make_error(fd < 0 ? "cannot open " + path + ": " + std::strerror(errno) : path + " is not an ELF file");
  std::vector<ElfFunction> out;
  if (!read_section(elf, SHT_SYMTAB, out)) read_section(elf, SHT_DYNSYM, out);
  elf_end(elf);
  close(fd);
  return out;
}

}  // namespace callprof

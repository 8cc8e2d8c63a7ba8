#include "target/inject/hook_slots.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "target/inject/mapped_modules.h"

namespace callprof::inject {
namespace {

struct ElfHandle {
  int fd = -1;
  Elf* elf = nullptr;
  ~ElfHandle() {
    if (elf) elf_end(elf);
    if (fd >= 0) close(fd);
  }
};

// PT_GNU_RELRO's range, and the first PT_LOAD's page-aligned address (what the lowest
// mapping of the file starts at, less the bias).
struct Layout {
  uint64_t relro_start = 0, relro_end = 0;
  uint64_t first_load = 0;
};

Layout layout_of(Elf* elf) {
  Layout l;
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return l;
  bool load_seen = false;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, int(i), &ph)) continue;
    if (ph.p_type == PT_GNU_RELRO) l.relro_start = ph.p_vaddr, l.relro_end = ph.p_vaddr + ph.p_memsz;
    if (ph.p_type == PT_LOAD && !load_seen) l.first_load = ph.p_vaddr & ~uint64_t(0xfff), load_seen = true;
  }
  return l;
}

void add_section_slots(Elf* elf, Elf_Scn* scn, const GElf_Shdr& sh, const Layout& l, uint64_t bias,
                       std::vector<HookSlot>& out) {
  Elf_Scn* symtab = elf_getscn(elf, sh.sh_link);
  GElf_Shdr sym_sh;
  Elf_Data* relocs = elf_getdata(scn, nullptr);
  Elf_Data* symbols = symtab ? elf_getdata(symtab, nullptr) : nullptr;
  if (!relocs || !symbols || !gelf_getshdr(symtab, &sym_sh)) return;
  for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
    GElf_Rela r;
    if (!gelf_getrela(relocs, int(i), &r)) continue;
    const auto type = GELF_R_TYPE(r.r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    GElf_Sym sym;
    if (!gelf_getsym(symbols, int(GELF_R_SYM(r.r_info)), &sym)) continue;
    const char* name = elf_strptr(elf, sym_sh.sh_link, sym.st_name);
    if (!name) continue;
    const bool enter = std::strcmp(name, "__cyg_profile_func_enter") == 0;
    if (!enter && std::strcmp(name, "__cyg_profile_func_exit") != 0) continue;
    HookSlot s;
    s.address = bias + r.r_offset;
    s.exit = !enter;
    s.read_only = r.r_offset >= l.relro_start && r.r_offset < l.relro_end;
    out.push_back(s);
  }
}

}  // namespace

Result<std::vector<HookSlot>> hook_slots_of(const std::string& path, uint64_t bias) {
  ElfHandle h;
  h.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (h.fd < 0) return make_error("cannot open " + path + ": " + std::strerror(errno));
  elf_version(EV_CURRENT);
  h.elf = elf_begin(h.fd, ELF_C_READ_MMAP, nullptr);
  if (!h.elf || elf_kind(h.elf) != ELF_K_ELF) return make_error(path + " is not an ELF file");
  const Layout l = layout_of(h.elf);
  std::vector<HookSlot> out;
  for (Elf_Scn* scn = elf_nextscn(h.elf, nullptr); scn; scn = elf_nextscn(h.elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && sh.sh_entsize > 0)
      add_section_slots(h.elf, scn, sh, l, bias, out);
  }
  for (HookSlot& s : out) s.module = path;
  return out;
}

std::string settings_line(const HookSlot& slot) {
  char line[64];
  snprintf(line, sizeof line, "got %llx %s %d", static_cast<unsigned long long>(slot.address),
           slot.exit ? "exit" : "enter", slot.read_only ? 1 : 0);
  return line;
}

Result<std::vector<HookSlot>> hook_slots(pid_t pid) {
  auto modules = mapped_modules(pid);
  if (!modules) return modules.error();
  std::vector<HookSlot> out;
  for (const MappedModule& m : *modules) {
    auto slots = hook_slots_of(m.file, m.bias);
    if (!slots) continue;
    for (HookSlot& s : *slots) s.module = m.path;
    out.insert(out.end(), slots->begin(), slots->end());
  }
  return out;
}

}  // namespace callprof::inject

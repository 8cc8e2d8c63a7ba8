#include "target/inject/hook_slots.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "symbols/elf_file.h"
#include "target/inject/mapped_modules.h"
#include "target/shared_libraries.h"

namespace callprof::inject {
namespace {

constexpr std::string_view kSlotFunctions[] = {"__cyg_profile_func_enter",
                                               "__cyg_profile_func_exit",
                                               "execve",
                                               "execv",
                                               "execvp",
                                               "execvpe",
                                               "fexecve",
                                               "execl",
                                               "execlp",
                                               "execle",
                                               "_exit",
                                               "_Exit",
                                               "pthread_create",
                                               "pthread_exit",
                                               "_setjmp",
                                               "setjmp",
                                               "__sigsetjmp",
                                               "longjmp",
                                               "siglongjmp",
                                               "_longjmp",
                                               "__longjmp_chk",
                                               "__cxa_begin_catch",
                                               "_Unwind_RaiseException",
                                               "_Unwind_Resume",
                                               "_Unwind_Resume_or_Rethrow",
                                               "_Unwind_ForcedUnwind",
                                               "pthread_cancel"};  // not stood in for: refused when patching

// PT_GNU_RELRO's range: read-only once the loader has relocated it.
struct Relro {
  uint64_t start = 0, end = 0;
};

Relro relro_of(Elf* elf) {
  Relro r;
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return r;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_GNU_RELRO)
      r.start = ph.p_vaddr, r.end = ph.p_vaddr + ph.p_memsz;
  }
  return r;
}

void add_section_slots(Elf* elf, Elf_Scn* scn, const GElf_Shdr& sh, const Relro& relro, uint64_t bias,
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
    if (std::find(std::begin(kSlotFunctions), std::end(kSlotFunctions), std::string_view(name)) ==
        std::end(kSlotFunctions))
      continue;
    HookSlot s;
    s.address = bias + r.r_offset;
    s.function = name;
    s.read_only = r.r_offset >= relro.start && r.r_offset < relro.end;
    out.push_back(s);
  }
}

}  // namespace

Result<std::vector<HookSlot>> hook_slots_of(const std::string& path, uint64_t bias) {
  auto file = ElfFile::open(path);
  if (!file) return file.error();
  Elf* elf = file->elf();
  const Relro relro = relro_of(elf);
  std::vector<HookSlot> out;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && sh.sh_entsize > 0)
      add_section_slots(elf, scn, sh, relro, bias, out);
  }
  return out;
}

std::vector<ModuleSlots> start_up_slots(const std::string& executable) {
  std::vector<std::string> modules{executable};
  if (auto libs = shared_libraries(executable)) modules.insert(modules.end(), libs->begin(), libs->end());
  std::vector<ModuleSlots> out;
  for (const std::string& m : modules)
    if (auto slots = hook_slots_of(m, 0)) out.push_back({m, std::move(*slots)});
  return out;
}

std::string settings_line(const HookSlot& slot) {
  char line[64];
  const std::string kind = slot.function == "__cyg_profile_func_enter"  ? "enter"
                           : slot.function == "__cyg_profile_func_exit" ? "exit"
                                                                        : slot.function;
  snprintf(line, sizeof line, "got %llx %s %d", static_cast<unsigned long long>(slot.address), kind.c_str(),
           slot.read_only ? 1 : 0);
  return line;
}

Result<std::vector<HookSlot>> hook_slots(pid_t pid, const std::string& except) {
  auto modules = mapped_modules(pid);
  if (!modules) return modules.error();
  std::vector<HookSlot> out;
  for (const MappedModule& m : *modules) {
    if (m.path == except) continue;
    auto slots = hook_slots_of(m.file, m.bias);
    if (!slots) continue;
    out.insert(out.end(), slots->begin(), slots->end());
  }
  return out;
}

}  // namespace callprof::inject

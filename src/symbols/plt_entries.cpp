// Naming PLT stubs (see plt_entries.h). Layouts (binutils and lld, x86-64):
//   .plt       PLT0: push GOT+8(%rip); jmp *GOT+16(%rip)
//              lazy stub: jmp *slot(%rip); push $n; jmp PLT0
//              IBT stub:  endbr64; push $n; bnd jmp PLT0   (the jump is in .plt.sec)
//   .plt.sec   endbr64; bnd jmp *slot(%rip)
//   .plt.got   [endbr64;] [bnd] jmp *slot(%rip)   (functions whose address is also taken)
#include "symbols/plt_entries.h"

#include <gelf.h>

#include <cstring>
#include <string_view>
#include <unordered_map>

namespace callprof::symbols_detail {
namespace {

struct Section {
  Elf_Scn* scn;
  GElf_Shdr sh;
  std::string_view name;
};

std::vector<Section> sections(Elf* elf) {
  std::vector<Section> out;
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return out;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) continue;
    const char* name = elf_strptr(elf, names, sh.sh_name);
    out.push_back({scn, sh, name != nullptr ? name : ""});
  }
  return out;
}

// The dynamic relocations that name a function: by GOT slot (JUMP_SLOT, GLOB_DAT), and
// .rela.plt's in order (what an IBT stub's push $n indexes; "" where there is no name).
struct Relocations {
  std::unordered_map<uint64_t, std::string> by_slot;
  std::vector<std::string> plt;
};

void read_relocations(Elf* elf, const Section& rela, Relocations& out) {
  GElf_Shdr symbols_header;
  Elf_Scn* symbols = elf_getscn(elf, rela.sh.sh_link);
  if (symbols == nullptr || gelf_getshdr(symbols, &symbols_header) == nullptr || symbols_header.sh_type != SHT_DYNSYM)
    return;
  Elf_Data* symbol_data = elf_getdata(symbols, nullptr);
  Elf_Data* data = elf_getdata(rela.scn, nullptr);
  if (symbol_data == nullptr || data == nullptr || rela.sh.sh_entsize == 0) return;
  const bool plt = rela.name == ".rela.plt";
  const size_t count = rela.sh.sh_size / rela.sh.sh_entsize;
  for (size_t i = 0; i < count; ++i) {
    GElf_Rela r;
    if (gelf_getrela(data, int(i), &r) == nullptr) break;
    const uint64_t type = GELF_R_TYPE(r.r_info);
    std::string name;
    GElf_Sym sym;
    if (GELF_R_SYM(r.r_info) != 0 && gelf_getsym(symbol_data, int(GELF_R_SYM(r.r_info)), &sym) != nullptr)
      if (const char* s = elf_strptr(elf, symbols_header.sh_link, sym.st_name)) name = s;
    const bool names_function = (type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) && !name.empty();
    if (names_function) out.by_slot.emplace(r.r_offset, name);
    if (plt) out.plt.push_back(names_function ? name : "");
  }
}

// What one stub's code says it goes to.
struct Target {
  enum Kind { None, Slot, Index, Header } kind = None;
  uint64_t value = 0;
};

Target decode(const uint8_t* code, size_t size, uint64_t address) {
  size_t i = 0;
  if (size >= 4 && std::memcmp(code, "\xf3\x0f\x1e\xfa", 4) == 0) i = 4;  // endbr64
  if (i < size && code[i] == 0xf2) ++i;                                   // bnd
  if (i + 6 <= size && code[i] == 0xff && (code[i + 1] == 0x25 || code[i + 1] == 0x35)) {
    int32_t disp = 0;
    std::memcpy(&disp, code + i + 2, 4);
    if (code[i + 1] == 0x35) return {Target::Header, 0};  // push GOT+8(%rip)
    return {Target::Slot, address + i + 6 + uint64_t(int64_t(disp))};
  }
  if (i + 5 <= size && code[i] == 0x68) {  // push $n
    uint32_t index = 0;
    std::memcpy(&index, code + i + 1, 4);
    return {Target::Index, index};
  }
  return {};
}

void add_stubs(const Section& s, const Relocations& relocations, std::vector<PltEntry>& out) {
  Elf_Data* data = elf_getdata(s.scn, nullptr);
  if (data == nullptr || data->d_buf == nullptr || data->d_size != s.sh.sh_size) return;  // e.g. NOBITS
  const auto* code = static_cast<const uint8_t*>(data->d_buf);
  uint64_t stride = s.sh.sh_entsize;
  if (stride == 0)
    stride = s.name == ".plt.got" && (s.sh.sh_size < 4 || std::memcmp(code, "\xf3\x0f\x1e\xfa", 4) != 0) ? 8 : 16;
  for (uint64_t at = 0; at + stride <= s.sh.sh_size; at += stride) {
    const Target t = decode(code + at, stride, s.sh.sh_addr + at);
    std::string name;
    if (t.kind == Target::Slot) {
      if (auto it = relocations.by_slot.find(t.value); it != relocations.by_slot.end()) name = it->second + "@plt";
    } else if (t.kind == Target::Index) {
      if (t.value < relocations.plt.size() && !relocations.plt[t.value].empty())
        name = relocations.plt[t.value] + "@plt";
    } else if (t.kind == Target::Header) {
      name = "[plt]";
    }
    if (!name.empty()) out.push_back({s.sh.sh_addr + at, stride, std::move(name)});
  }
}

}  // namespace

std::vector<PltEntry> plt_entries(Elf* elf) {
  std::vector<PltEntry> out;
  GElf_Ehdr header;
  if (elf == nullptr || gelf_getehdr(elf, &header) == nullptr || header.e_machine != EM_X86_64) return out;
  const std::vector<Section> all = sections(elf);
  Relocations relocations;
  for (const Section& s : all)
    if (s.sh.sh_type == SHT_RELA) read_relocations(elf, s, relocations);
  for (const Section& s : all)
    if ((s.name == ".plt" || s.name == ".plt.sec" || s.name == ".plt.got") && (s.sh.sh_flags & SHF_EXECINSTR))
      add_stubs(s, relocations, out);
  return out;
}

}  // namespace callprof::symbols_detail

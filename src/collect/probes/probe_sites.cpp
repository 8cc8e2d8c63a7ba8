#include "collect/probes/probe_sites.h"

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <cstring>
#include <memory>
#include <set>

#include "symbols/elf_functions.h"

namespace callprof::probes {
namespace {

struct Segment {
  uint64_t vaddr, memsz, offset, filesz;
};

std::vector<Segment> executable_segments(Elf* elf) {
  std::vector<Segment> out;
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return out;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      out.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz});
  }
  return out;
}

struct CapstoneHandle {
  csh handle = 0;
  bool ok = false;
  CapstoneHandle() {
    ok = cs_open(CS_ARCH_X86, CS_MODE_64, &handle) == CS_ERR_OK;
    if (ok) cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
  }
  ~CapstoneHandle() {
    if (ok) cs_close(&handle);
  }
};

bool in_cold_part(const ColdParts& cold, uint64_t address) {
  auto after = std::upper_bound(cold.begin(), cold.end(), std::make_pair(address, UINT64_MAX));
  return after != cold.begin() && address < std::prev(after)->second;
}

bool is_direct_jump_out(const cs_insn& insn, uint64_t start, uint64_t end, const ColdParts& cold) {
  if (insn.id != X86_INS_JMP || !insn.detail) return false;
  const cs_x86& x86 = insn.detail->x86;
  if (x86.op_count != 1 || x86.operands[0].type != X86_OP_IMM) return false;
  const uint64_t target = uint64_t(x86.operands[0].imm);
  return (target < start || target >= end) && !in_cold_part(cold, target);
}

}  // namespace

std::vector<uint64_t> find_exits(const uint8_t* code, size_t size, uint64_t address, const ColdParts& cold) {
  static thread_local CapstoneHandle cs;
  std::vector<uint64_t> exits;
  if (!cs.ok) return exits;
  std::unique_ptr<cs_insn, void (*)(cs_insn*)> insn(cs_malloc(cs.handle), [](cs_insn* i) { cs_free(i, 1); });
  const uint8_t* p = code;
  size_t left = size;
  uint64_t at = address;
  while (left > 0 && cs_disasm_iter(cs.handle, &p, &left, &at, insn.get())) {
    if (insn->id == X86_INS_RET || is_direct_jump_out(*insn, address, address + size, cold))
      exits.push_back(insn->address - address);
  }
  return exits;
}

Result<std::vector<ProbeFunction>> find_probe_functions(const std::string& module, const Pattern& functions) {
  int fd = open(module.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open " + module + ": " + std::strerror(errno));
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    if (elf) elf_end(elf);
    close(fd);
    return make_error(module + " is not an ELF file");
  }
  const std::vector<Segment> segments = executable_segments(elf);
  auto symbols = elf_functions(module);  // .symtab, else .dynsym
  if (!symbols) symbols = std::vector<ElfFunction>{};
  ColdParts cold;
  for (const ElfFunction& f : *symbols)
    if (f.linkage_name.find(".cold") != std::string::npos) cold.emplace_back(f.address, f.address + f.size);
  std::sort(cold.begin(), cold.end());
  std::vector<ProbeFunction> out;
  std::set<uint64_t> seen;
  std::vector<uint8_t> code;
  for (ElfFunction& sym : *symbols) {
    // GCC's cold parts (`f.cold`) are jumped into from their function, never called.
    if (sym.size == 0 || sym.indirect || seen.count(sym.address) || sym.linkage_name.find(".cold") != std::string::npos)
      continue;
    if (!functions.search(sym.name) && (sym.name == sym.linkage_name || !functions.search(sym.linkage_name))) continue;
    auto seg = std::find_if(segments.begin(), segments.end(), [&](const Segment& s) {
      return sym.address >= s.vaddr && sym.address + sym.size <= s.vaddr + std::min(s.memsz, s.filesz);
    });
    if (seg == segments.end()) continue;
    seen.insert(sym.address);
    ProbeFunction f{module, std::move(sym.name), sym.address, sym.size, sym.address - seg->vaddr + seg->offset, {}};
    code.resize(sym.size);
    if (pread(fd, code.data(), code.size(), off_t(f.entry_offset)) == ssize_t(code.size()))
      for (uint64_t exit : find_exits(code.data(), code.size(), sym.address, cold)) {
        if (exit == 0) f.entry_exits = true;
        else f.exit_offsets.push_back(f.entry_offset + exit);
      }
    out.push_back(std::move(f));
  }
  elf_end(elf);
  close(fd);
  return out;
}

}  // namespace callprof::probes

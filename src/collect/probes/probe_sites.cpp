#include "collect/probes/probe_sites.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <set>

#include "symbols/disassembler.h"
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

// Where code may enter a function other than at its start: the starts of other functions
// (an alias in the middle of another, as hand-written assembly has), and the targets of
// the branches in cold parts (back into their functions). Sorted.
std::vector<uint64_t> entry_points(int fd, const std::vector<Segment>& segments,
                                   const std::vector<ElfFunction>& symbols, const ColdParts& cold,
                                   std::vector<uint8_t>& code) {
  std::vector<uint64_t> out;
  for (const ElfFunction& f : symbols) out.push_back(f.address);
  for (const auto& [start, end] : cold) {
    auto seg = std::find_if(segments.begin(), segments.end(), [&](const Segment& s) {
      return start >= s.vaddr && end <= s.vaddr + std::min(s.memsz, s.filesz);
    });
    if (seg == segments.end()) continue;
    code.resize(end - start);
    if (pread(fd, code.data(), code.size(), off_t(start - seg->vaddr + seg->offset)) != ssize_t(code.size())) continue;
    for (uint64_t t : branch_targets(code.data(), code.size(), start)) out.push_back(t);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<std::vector<ProbeFunction>> find_probe_functions(const std::string& module, const Pattern& functions,
                                                        bool return_probes) {
  if (Disassembler cs; !cs.ok()) return make_error(cs.error());
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
  std::vector<uint8_t> code;
  const std::vector<uint64_t> entries = entry_points(fd, segments, *symbols, cold, code);
  std::vector<ProbeFunction> out;
  std::set<uint64_t> seen;
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
    ProbeFunction f;
    f.module = module;
    f.name = std::move(sym.name);
    f.address = sym.address;
    f.size = sym.size;
    f.entry_offset = f.entry_site = sym.address - seg->vaddr + seg->offset;
    code.resize(sym.size);
    if (pread(fd, code.data(), code.size(), off_t(f.entry_offset)) == ssize_t(code.size())) {
      auto first = std::upper_bound(entries.begin(), entries.end(), sym.address);
      const std::vector<uint64_t> inside(first, std::lower_bound(first, entries.end(), sym.address + sym.size));
      const Placement pl = place_probes(code.data(), code.size(), sym.address, cold, inside);
      f.entry_site = f.entry_offset + pl.entry;
      f.entry_emulated = pl.entry_emulated;
      f.entry_exits = pl.entry_exits;
      f.returns = return_probes && pl.leaf;
      if (!f.returns)
        for (size_t i = 0; i < pl.exits.size(); ++i) {
          f.exit_offsets.push_back(f.entry_offset + pl.exits[i]);
          f.exit_emulated.push_back(pl.exits_emulated[i]);
        }
    }
    out.push_back(std::move(f));
  }
  elf_end(elf);
  close(fd);
  return out;
}

}  // namespace callprof::probes

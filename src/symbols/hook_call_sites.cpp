#include "symbols/hook_call_sites.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <tuple>

#include "symbols/disassembler.h"
#include "symbols/elf_file.h"
#include "symbols/elf_function_symbols.h"
#include "symbols/plt_entries.h"

namespace callprof {
namespace {

// The stubs' addresses for each hook: [0] enter, [1] exit.
struct HookStubs {
  std::vector<uint64_t> of[2];
  bool empty() const { return of[0].empty() && of[1].empty(); }
  int kind(uint64_t target) const {
    for (int k = 0; k < 2; ++k)
      if (std::find(of[k].begin(), of[k].end(), target) != of[k].end()) return k;
    return -1;
  }
};

HookStubs hook_stubs(Elf* elf) {
  HookStubs stubs;
  for (const symbols_detail::PltEntry& e : symbols_detail::plt_entries(elf)) {
    if (e.name == "__cyg_profile_func_enter@plt") stubs.of[0].push_back(e.address);
    if (e.name == "__cyg_profile_func_exit@plt") stubs.of[1].push_back(e.address);
  }
  return stubs;
}

// Whether [start, end) lies in a PT_LOAD segment that is read + execute, nothing else: the
// runtime gives a page back exactly those rights after rewriting it.
bool in_text_segment(Elf* elf, uint64_t start, uint64_t end) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return false;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) == nullptr || ph.p_type != PT_LOAD) continue;
    if (start >= ph.p_vaddr && end <= ph.p_vaddr + ph.p_memsz) return ph.p_flags == (PF_R | PF_X);
  }
  return false;
}

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

// Function symbols' address ranges, ascending by start (the full symbol table's, else the
// dynamic one's).
Ranges function_ranges(Elf* elf) {
  Ranges out;
  for (Elf64_Word type : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != type) continue;
      for_each_function_symbol(scn, sh, [&](const GElf_Sym& sym) {
        if (sym.st_size > 0) out.emplace_back(sym.st_value, sym.st_value + sym.st_size);
      });
    }
    if (!out.empty()) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The start of the function symbol holding `address`, 0 when none does.
uint64_t function_at(const Ranges& ranges, uint64_t address) {
  auto after = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(address, UINT64_MAX));
  if (after == ranges.begin()) return 0;
  --after;
  return address < after->second ? after->first : 0;
}

// Candidates: bytes e8/e9 followed by a rel32 that reaches a hook's stub, wherever they lie
// (a quick pass over the raw code); only disassembly tells which start an instruction.
std::vector<uint64_t> candidates(const uint8_t* code, size_t size, uint64_t base, const HookStubs& stubs) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i + 5 <= size; ++i) {
    if (code[i] != 0xe8 && code[i] != 0xe9) continue;
    int32_t rel = 0;
    std::memcpy(&rel, code + i + 1, 4);
    if (stubs.kind(base + i + 5 + uint64_t(int64_t(rel))) >= 0) out.push_back(base + i);
  }
  return out;
}

// Where to start disassembling so that `address` is reached at instruction boundaries: the
// start of the function symbol that holds it, or the end of the one before (compilers pad
// between functions with whole instructions), or the section's start.
uint64_t sweep_start(const Ranges& functions, uint64_t address, uint64_t section_start) {
  auto after = std::upper_bound(functions.begin(), functions.end(), std::make_pair(address, UINT64_MAX));
  if (after == functions.begin()) return section_start;
  const auto& before = *std::prev(after);
  return std::max(address < before.second ? before.first : before.second, section_start);
}

// Which of `jumps` (candidates, ascending) start an instruction: capstone decodes each one's
// function from its start (without operand details; it still formats every instruction's
// text, so only those functions, up to their last candidate).
std::vector<uint64_t> confirmed(Disassembler& cs, const uint8_t* code, const GElf_Shdr& sh,
                                const std::vector<uint64_t>& jumps, const Ranges& functions) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < jumps.size();) {
    const uint64_t from = sweep_start(functions, jumps[i], sh.sh_addr);
    size_t last = i;
    while (last + 1 < jumps.size() && sweep_start(functions, jumps[last + 1], sh.sh_addr) == from) ++last;
    const uint8_t* p = code + (from - sh.sh_addr);
    size_t left = jumps[last] + 5 - from;
    uint64_t at = from;
    while (left > 0 && cs.next(&p, &left, &at))
      if (cs.insn().size == 5 && std::binary_search(jumps.begin() + i, jumps.begin() + last + 1, cs.insn().address))
        out.push_back(cs.insn().address);
    i = last + 1;
  }
  return out;
}

// The last byte of the section's first function that ends in 0xc3, 0 when none does. Jumped
// to, a byte 0xc3 executes as `ret` whatever instruction it ends, so no decoding is needed.
uint64_t last_return_byte(const uint8_t* code, size_t size, uint64_t base, const Ranges& functions) {
  for (const auto& [start, end] : functions)
    if (start >= base && end <= base + size && end > start && code[end - 1 - base] == 0xc3) return end - 1;
  return 0;
}

// One section. A call of a hook's stub is listed as its bytes say, undecoded: the runtime
// rewrites one only after a hook call returned right behind it (hook_removal.h), which a
// run of bytes inside another instruction cannot have done, since compilers call the hooks
// directly or through the GOT, never through a pointer that could end at those bytes. A
// jump, which leaves no such trace, is listed only when disassembly shows it starts an
// instruction in a function.
// The decoder is made at the first tail jump: most programs (any built by Clang) have none.
Status scan_section(std::optional<Disassembler>& cs, Elf_Scn* scn, const GElf_Shdr& sh, const HookStubs& stubs,
                    bool rewritable, const Ranges& functions, HookCallSites& out) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr || data->d_buf == nullptr) return Ok{};
  const auto* code = static_cast<const uint8_t*>(data->d_buf);
  std::vector<uint64_t> jumps;
  for (const uint64_t at : candidates(code, data->d_size, sh.sh_addr, stubs)) {
    const uint8_t* bytes = code + (at - sh.sh_addr);
    int32_t rel = 0;
    std::memcpy(&rel, bytes + 1, 4);
    const int kind = stubs.kind(at + 5 + uint64_t(int64_t(rel)));
    if (!rewritable)
      ++out.other_calls;
    else if (bytes[0] == 0xe8)
      (kind == 0 ? out.enter : out.exit).push_back(at);
    else if (kind == 1 && function_at(functions, at) != 0)
      jumps.push_back(at);
    else
      ++out.other_calls;
  }
  if (rewritable && out.ret_byte == 0) out.ret_byte = last_return_byte(code, data->d_size, sh.sh_addr, functions);
  if (jumps.empty()) return Ok{};
  if (!cs) cs.emplace(CS_OPT_SKIPDATA);
  if (!cs->ok()) return make_error(cs->error());
  for (const uint64_t at : confirmed(*cs, code, sh, jumps, functions))
    out.tail_exits.push_back({function_at(functions, at), at});
  return Ok{};
}

}  // namespace

Result<HookCallSites> find_hook_call_sites(const std::string& path) {
  auto file = ElfFile::open(path);
  if (!file) return file.error();
  Elf* elf = file->elf();
  HookCallSites out;
  const HookStubs stubs = hook_stubs(elf);
  if (stubs.empty()) return out;
  out.stubs[0] = stubs.of[0];
  out.stubs[1] = stubs.of[1];
  std::optional<Disassembler> cs;
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return out;
  const Ranges functions = function_ranges(elf);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
    const char* name = elf_strptr(elf, names, sh.sh_name);
    if (name != nullptr && std::strncmp(name, ".plt", 4) == 0) continue;
    if (Status s =
            scan_section(cs, scn, sh, stubs, in_text_segment(elf, sh.sh_addr, sh.sh_addr + sh.sh_size), functions, out);
        !s)
      return s.error();
  }
  std::sort(out.enter.begin(), out.enter.end());
  std::sort(out.exit.begin(), out.exit.end());
  std::sort(out.tail_exits.begin(), out.tail_exits.end(),
            [](const auto& a, const auto& b) { return std::tie(a.function, a.site) < std::tie(b.function, b.site); });
  return out;
}

}  // namespace callprof

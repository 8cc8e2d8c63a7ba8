// The procedure linkage table's stubs of an x86-64 ELF file, named "sin@plt" after the
// symbol each one jumps to, as perf and objdump name them: no symbol table covers them, so
// without this a sample in a stub was named after whatever symbol came before (_init).
// Internal to src/symbols.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <string>
#include <vector>

namespace callprof::symbols_detail {

struct PltEntry {
  uint64_t address;  // ELF virtual address of the stub
  uint64_t size;
  std::string name;  // "sin@plt"; "[plt]" for the lazy-binding header (PLT0)
};

// The stubs of .plt, .plt.sec and .plt.got, by what their code says (libelf reads the
// sections, relocations and dynamic symbols): a stub's `jmp *slot(%rip)` names the GOT slot
// whose JUMP_SLOT or GLOB_DAT relocation names the symbol; an IBT .plt stub (endbr64;
// push $n; jmp PLT0) is the n-th .rela.plt entry's. Stubs that say neither are left out.
// Empty for a file without them (or whose sections are not in the file: a debug file).
std::vector<PltEntry> plt_entries(Elf* elf);

}  // namespace callprof::symbols_detail

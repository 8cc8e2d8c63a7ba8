// The warning about a module without debug info (see header).
#include "symbols/stripped_modules.h"

#include <gelf.h>

#include <cstring>

#include "symbols/debug_search.h"
#include "symbols/elf_function_symbols.h"
#include "symbols/elf_handles.h"
#include "util/strings.h"

namespace callprof::symbols_detail {
namespace {

// What the module's own file offers in place of debug info.
struct SymbolSources {
  bool symtab = false;           // .symtab: every function, local ones too
  bool mini_debuginfo = false;   // .gnu_debugdata: an xz-packed .symtab (Fedora's MiniDebugInfo)
  size_t dynamic_functions = 0;  // functions the .dynsym defines (the exported ones)
};

size_t defined_functions(Elf_Scn* scn, const GElf_Shdr& sh) {
  size_t count = 0;
  for_each_function_symbol(scn, sh, [&](const GElf_Sym&) { ++count; });
  return count;
}

SymbolSources symbol_sources(Dwfl_Module* mod) {
  SymbolSources sources;
  for_each_section(mod, [&](Elf_Scn* scn, const GElf_Shdr& sh, const char* name) {
    if (sh.sh_type == SHT_SYMTAB) sources.symtab = true;
    if (sh.sh_type == SHT_DYNSYM) sources.dynamic_functions += defined_functions(scn, sh);
    if (name != nullptr && std::strcmp(name, ".gnu_debugdata") == 0) sources.mini_debuginfo = true;
  });
  return sources;
}

}  // namespace

std::string missing_debug_info_warning(Dwfl_Module* mod, const LoadedModule& module,
                                       const std::function<bool()>& has_unwind_starts,
                                       const SymbolizerOptions& options) {
  const SymbolSources s = symbol_sources(mod);
  const std::string& path = module.path;
  const std::string advice = debug_search_advice(module.build_id, options);
  if (s.symtab) return path + ": no debug info; names from the symbol table only, no source lines; " + advice;
  if (s.mini_debuginfo)
    return path + ": no debug info; names from its MiniDebugInfo symbol table only, no source lines; " + advice;
  const bool unwind_starts = has_unwind_starts();  // read only for a stripped file
  if (s.dynamic_functions == 0 && !unwind_starts)
    return path + ": stripped, no symbols, no unwind info and no debug info: its addresses are left unnamed; " + advice;
  const std::string exported =
      s.dynamic_functions == 0
          ? "its functions "
          : std::to_string(s.dynamic_functions) + " exported functions named from its dynamic symbols, the others ";
  const std::string others =
      unwind_starts ? "named " + std::string(base_name(path)) + "+0xSTART (each function's start, from its unwind info)"
                    : "left unnamed, address by address (no unwind info either)";
  return path + ": stripped (no symbol table, no debug info): " + exported + others + "; " + advice;
}

}  // namespace callprof::symbols_detail

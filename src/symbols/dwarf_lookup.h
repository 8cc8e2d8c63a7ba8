// DWARF queries behind the symbolizer: the function containing an address, its
// declaration's file and line, and the chain of inlined calls at the address.
// Internal to src/symbols.
#pragma once

#include <elfutils/libdwfl.h>

#include <vector>

#include "symbols/module_dwarf.h"
#include "symbols/symbolizer.h"

namespace callprof::symbols_detail {

// Fills file/line (and pc_file/pc_line) of info for the function containing a
// runtime address; when info has no ELF symbol yet, also its name from DWARF.
void describe_from_dwarf(ModuleDwarf& dwarf, Dwarf_Addr address, SymbolInfo& info);

// The inlined frames at a runtime address, innermost first, followed by outer (the
// function resolve() found), whose pc_file/pc_line become the outermost call site.
std::vector<SymbolInfo> inline_chain(ModuleDwarf& dwarf, Dwarf_Addr address, const SymbolInfo& outer);

}  // namespace callprof::symbols_detail

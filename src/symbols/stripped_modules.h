// What to tell the user about a module without debug info: whether it still has its full
// symbol table (.symtab, or MiniDebugInfo's), or only its dynamic symbols and the function
// starts of its unwind info (unwind_starts.h), or nothing at all.
// Internal to src/symbols.
#pragma once

#include <elfutils/libdwfl.h>

#include <functional>
#include <string>

#include "symbols/symbolizer.h"

namespace callprof::symbols_detail {

// The warning for a module whose debug info was not found: names from its symbol table
// only, or stripped (dynamic symbols, and function starts when `has_unwind_starts()`, asked
// only for a stripped file), or nothing at all; with where debug info was looked for and how
// to provide it.
std::string missing_debug_info_warning(Dwfl_Module* mod, const LoadedModule& module,
                                       const std::function<bool()>& has_unwind_starts,
                                       const SymbolizerOptions& options);

}  // namespace callprof::symbols_detail

// Where symbol and debug files are looked for: the module's file (or its copy under
// --symfs), the debug roots (build-id and path layouts), and the path libdwfl's standard
// find_debuginfo walks (beside the file, .debug/, the roots, then debuginfod).
// Internal to src/symbols.
#pragma once

#include <string>
#include <vector>

#include "symbols/symbolizer.h"

namespace callprof::symbols_detail {

// The debug roots in the order searched: <symfs>/usr/lib/debug, <symfs>, then debug_dirs.
std::vector<std::string> debug_roots(const SymbolizerOptions& options);

// libdwfl's Dwfl_Callbacks::debuginfo_path for these options: "" (beside the file),
// ".debug" (its subdirectory), then each root.
std::string debuginfo_path(const SymbolizerOptions& options);

// The files that may be the recorded module, best first: <symfs>/<path>, then path.
std::vector<std::string> file_candidates(const std::string& path, const SymbolizerOptions& options);

// One phrase for warnings: where debug info with this build id was looked for, and how the
// user can make it findable.
std::string debug_search_advice(const std::string& build_id, const SymbolizerOptions& options);

}  // namespace callprof::symbols_detail

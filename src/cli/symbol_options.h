// Where symbols are looked for (--symfs, --no-symbol-cache, for record, attach and every
// reading command), and
// naming a read profile's functions that the recording left unnamed (collect/runtime/late_names.h).
#pragma once

#include <CLI/CLI.hpp>

#include "model/profile.h"

namespace callprof::cli {

// --symfs DIR: checked (an existing directory, no ':') and made absolute, then the
// process's symbolizers search it (symbols/symbolizer.h, SymbolizerOptions::symfs).
// --no-symbol-cache: they neither read nor write callprof's symbol cache
// (SymbolizerOptions::cache).
void add_symbol_options(CLI::App& app);

// Names the profile's unnamed functions whose debug info can be found now. Silent unless
// --symfs was given: then one note per module says what was named, from where, or why not.
void name_unnamed_functions_now(Profile& profile);

}  // namespace callprof::cli

// Naming a recorded profile's unnamed functions when their debug info turns up later: the
// profile keeps each module's path and build id and each unnamed function's address in its
// file (its start, from the unwind info, when the recording found one), so reading commands
// look the debug info up again (--symfs, /usr/lib/debug, debuginfod) and name what they can.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/profile.h"
#include "symbols/symbolizer.h"

namespace callprof {

struct ModuleNaming {
  ModuleId module = kNoModule;
  size_t unnamed = 0;                 // its functions that had no name
  size_t named = 0;                   // of those, named now
  std::string file;                   // the ELF file opened for it ("" when none was found)
  std::string debug_file;             // its separate debug file ("" when none)
  std::vector<std::string> problems;  // the symbolizer's warnings, for the modules still unnamed
};

// One entry per module that had unnamed functions, in module order.
using LateNaming = std::vector<ModuleNaming>;

// Whether a function is one the recorder could not name: a plain function of a module, with
// no symbol, whose name is the label unnamed_function_label() gives it.
bool is_unnamed_function(const Profile& profile, const Function& f);

// Names every unnamed function whose module's symbols or debug info can be found now (the
// module's file must still have the recorded build id, or a copy must be found by it). Each
// module is opened once; modules without unnamed functions are not opened at all.
LateNaming name_unnamed_functions(Profile& profile, const SymbolizerOptions& options = default_symbolizer_options());

}  // namespace callprof

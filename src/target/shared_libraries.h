// The shared libraries a dynamically linked program loads at start-up, as its own dynamic
// loader resolves them (LD_TRACE_LOADED_OBJECTS, what ldd does). Runs the loader only: we
// are about to run the program anyway.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace callprof {

// Canonical paths of the libraries `executable` loads; empty for a static program.
Result<std::vector<std::string>> shared_libraries(const std::string& executable);

// Parses the loader's trace output (one "name => path (address)" line per library, or
// "path (address)" for the loader and libraries named by a path).
std::vector<std::string> parse_loader_trace(const std::string& text);

}  // namespace callprof

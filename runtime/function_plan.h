// Per-function decisions made by `callprof record` before the program started: which
// functions are filtered out (--include/--exclude on function and module names) and which
// are checkpoints. The recorder resolves names to ELF addresses per module file; here they
// become run-time addresses. Consulted only when a call path is first seen.
#pragma once

#include <stdint.h>

namespace callprof::rt {

// Reads the plan (format in docs/design.md, "Filters"); "" or an unreadable file: no plan.
void load_function_plan(const char* path);
// wire::kNode* flags for a function's new nodes.
uint32_t function_flags(uint64_t fn);

}  // namespace callprof::rt

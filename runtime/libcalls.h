// Library calls (opt-in, CALLPROF_LIBCALLS=1): calls that leave an instrumented module
// through its PLT become their own nodes, named after the imported symbol. See
// docs/modes.md for the mechanism and its limits.
#pragma once

#include <stdint.h>

namespace callprof::rt {

struct LibCallInfo {
  uint64_t id;       // the fn value the nodes use: a stub address, one per (symbol, target)
  uint64_t target;   // the runtime address the symbol resolved to
  const char* name;  // the imported symbol's name
};

// Rewrites the PLT slots of the instrumented modules loaded now; safe to call once.
void install_libcalls();
uint32_t libcall_count();
LibCallInfo libcall_info(uint32_t index);

}  // namespace callprof::rt

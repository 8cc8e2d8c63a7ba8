// What `record` needs to know about a program before running it: where it is, whether it
// is a dynamically linked ELF file (so LD_PRELOAD can load the runtime), and whether it
// carries -finstrument-functions hooks (exact mode).
#pragma once

#include <string>

#include "util/result.h"

namespace callprof {

struct ExecutableInfo {
  std::string path;          // resolved through PATH like execvp
  bool dynamic = false;      // has an ELF interpreter
  bool has_hooks = false;    // references __cyg_profile_func_enter
};

Result<ExecutableInfo> inspect_executable(const std::string& program);

}  // namespace callprof

// Before attaching exact mode, what would make the attach fail half-way, said in one line
// while nothing in the process has changed: another tracer, Yama's ptrace_scope, a missing
// CAP_SYS_PTRACE, or a mount namespace in which the runtime's path is another file.
#pragma once

#include <sys/types.h>

#include <string>

#include "util/result.h"

namespace callprof::inject {

// Ok when callprof may ptrace `pid` (as far as /proc says before trying).
Status check_ptrace_allowed(pid_t pid);

// Ok when `path` names the same file inside the process's mount namespace as here.
Status check_visible_in(pid_t pid, const std::string& path);

}  // namespace callprof::inject

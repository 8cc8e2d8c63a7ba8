// The runtime's configuration variables, readable at any time: libc's getenv works only
// once libc has set `environ`, and a hook can run before that (an instrumented function in
// .preinit_array, or a malloc replacement libc calls during start-up).
#pragma once

namespace callprof::rt {

// The value of a CALLPROF_* variable (or any other), or null. Before libc has set
// `environ` it is read from /proc/self/environ (CALLPROF_* variables only).
const char* runtime_getenv(const char* name);

// Attached to a running program (attach.cpp): its CALLPROF_* settings come from these
// "NAME=value" lines instead of the environment, which callprof never set.
void use_runtime_settings(const char* lines, unsigned length);

}  // namespace callprof::rt

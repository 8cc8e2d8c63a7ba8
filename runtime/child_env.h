// Programs that start a child with an environment of their own (execve with its own envp,
// posix_spawn, `env -i`) would leave out LD_PRELOAD and the runtime's settings, and the
// child would run unprofiled without a word. The environment handed to such a child gets
// them back, as exact mode follows every process the program starts.
#pragma once

namespace callprof::rt {

// The number of pointers with_runtime_env needs in `out` for `envp` (its terminating null included).
unsigned runtime_env_slots(char* const envp[]);
// `envp` with this process's CALLPROF_* variables and its LD_PRELOAD (first, then the
// child's own) when it lacks them; `envp` itself when it has them or profiling is off.
// `out` has runtime_env_slots(envp) entries and `preload` room for
// runtime_preload_bytes(envp); both live as long as the exec or spawn call (the stack).
char* const* with_runtime_env(char* const envp[], char** out, char* preload);
unsigned runtime_preload_bytes(char* const envp[]);

}  // namespace callprof::rt

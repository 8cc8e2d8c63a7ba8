// The runtime's own signal handlers (saving the profile on a fatal signal, the snapshot
// signal) are invisible to the program: sigaction and signal report SIG_DFL where the
// program set nothing, so a handler that chains to "the previous one" finds the default,
// not ours. Once the program installs its own handler for a signal, it owns that signal.
#pragma once

#include <signal.h>

namespace callprof::rt {

// Installs `act` as the runtime's handler for `sig` (libc's sigaction, not the
// interposed one). Returns sigaction's result.
int install_runtime_handler(int sig, const struct sigaction& act);

// libc's sigaction, for the runtime's own queries.
int real_sigaction(int sig, const struct sigaction* act, struct sigaction* old);

}  // namespace callprof::rt

// The runtime's own signal handlers (saving the profile on a crash, the snapshot signal)
// are invisible to the program: every libc entry point that reports a disposition
// (sigaction, __sigaction, signal and its System V and BSD variants, ssignal, sigset)
// reports SIG_DFL where the runtime's handler is installed, so a handler that chains to
// "the previous one" finds the default, not ours. A handler is recognised by its address,
// so dispositions changed behind our back (sigignore, siginterrupt) read back right.
// Once the program installs its own handler for a signal, it owns that signal. For the
// crash-saving signals the runtime's handler *is* the default (it writes the profile,
// then the default action happens): a program that sets SIG_DFL there gets ours back.
#pragma once

#include <signal.h>

namespace callprof::rt {

// Installs `act` as the runtime's handler for `sig` (libc's sigaction, not the
// interposed one), if `only_over_default` is false or the disposition is SIG_DFL now.
// With `stands_for_default`, a program that later sets SIG_DFL gets `act` instead.
// Returns true when `act` is installed.
bool install_runtime_handler(int sig, const struct sigaction& act, bool only_over_default, bool stands_for_default);

// libc's sigaction, for the runtime's own queries.
int real_sigaction(int sig, const struct sigaction* act, struct sigaction* old);

}  // namespace callprof::rt

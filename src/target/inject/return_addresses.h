// A patched program's return addresses that an earlier attached window left replaced by
// the runtime's trampoline (frames still open when it ended: runtime/patched_calls.h).
// Before the next window callprof puts the real ones back, so that every stack unwinds as
// it is when a thread is borrowed and when the open frames are read: every thread stopped,
// none inside the runtime's code, it reads the runtime's return stacks
// (wire/return_stacks.h) from the process's memory and writes each real address into its
// slot where the slot still holds an address in the runtime's code; the stacks are emptied.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "util/result.h"

namespace callprof::inject {

// `stacks_head`: the address of the runtime's `callprof_return_stacks`; `runtime_code`: its
// executable mappings. How many return addresses were given back.
Result<size_t> restore_return_addresses(pid_t pid, uint64_t stacks_head,
                                        const std::vector<std::pair<uint64_t, uint64_t>>& runtime_code);

}  // namespace callprof::inject

// DWARF unwinding of one sample with libdwfl: the sample's registers start the walk,
// the copied stack and the mapped files serve its memory reads, the modules' CFI
// (.eh_frame, else .debug_frame) gives each caller; frame pointers where CFI is missing.
#pragma once

#include <string>
#include <vector>

#include "collect/perf/perf_records.h"
#include "collect/stacks/unwinder.h"
#include "collect/stacks/unwinder_address_space.h"

namespace callprof::stacks {

// out.frames must be empty. Problems with the process's files go to warnings.
void unwind_dwarf(AddressSpace& space, const perf::Sample& sample, const UnwindOptions& options, UserStack& out,
                  std::vector<std::string>& warnings);

}  // namespace callprof::stacks

// An ELF file's allocated sections of one name, at their link-time addresses: what a
// module's load bias relocates into the process (-fpatchable-function-entry's list of
// sites, __patchable_function_entries, is the one callprof reads).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace callprof {

// The sections' [start, end) ranges (a linker may keep several of one name, e.g. one per
// SHF_LINK_ORDER group); none when the file has no such section with bytes. An Error when
// the file cannot be read as ELF.
Result<std::vector<std::pair<uint64_t, uint64_t>>> allocated_sections(const std::string& path, const char* name);

// The name compilers list -fpatchable-function-entry's sites under (8-byte addresses).
inline constexpr const char* kPatchableSection = "__patchable_function_entries";

}  // namespace callprof

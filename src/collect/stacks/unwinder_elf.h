// What the unwinder needs to know about a mapped ELF file before handing it to libdwfl:
// the load bias of a mapping (from its PT_LOAD segments) and the file's build id.
#pragma once

#include <cstdint>
#include <string>

#include "collect/perf/perf_records.h"
#include "util/result.h"

namespace callprof::stacks {

struct MappedElf {
  int fd = -1;           // open on the file; whoever takes it closes it (libdwfl does)
  uint64_t bias = 0;     // runtime address = ELF vaddr + bias (0 for ET_EXEC)
  std::string build_id;  // lowercase hex, "" when the file has none
};

// Opens the mapping's file and finds the PT_LOAD segment that the mapping's file
// offset falls in. "[vdso]" is read from this process's own vDSO, which is the same
// kernel image the sampled process has.
Result<MappedElf> open_mapped_elf(const perf::Mapping& mapping);

// The load bias a mapping implies, for building Symbolizer modules from mappings.
Result<uint64_t> mapping_load_bias(const perf::Mapping& mapping);

// Paths that name no file: anonymous executable memory (JIT), "[heap]", "//anon".
bool mapping_has_file(const std::string& path);

}  // namespace callprof::stacks

// The ELF files a running process has mapped, with their load bias (/proc/PID/maps), and
// the addresses of their functions in it: what attaching needs to find the loader's dlopen,
// the runtime's entry and the modules' hook slots.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace callprof::inject {

struct MappedModule {
  std::string path;  // as the process sees it
  std::string file;  // where callprof opens it: /proc/PID/root + path
  uint64_t bias = 0;
};

Result<std::vector<MappedModule>> mapped_modules(pid_t pid);

// The executable mappings of `path` in process `pid`: [start, end) each.
std::vector<std::pair<uint64_t, uint64_t>> code_ranges(pid_t pid, const std::string& path);

// The first module whose file name starts with `prefix` ("libc.so"), or whose path is
// `prefix` when it has a '/'; null when none.
const MappedModule* find_module(const std::vector<MappedModule>& modules, const std::string& prefix);

// The address in the process of `function`, defined by `module` (its symbol table).
Result<uint64_t> function_address(const MappedModule& module, const std::string& function);

// The address in the process of the data object `name` that `module` exports (its dynamic
// symbol table).
Result<uint64_t> data_address(const MappedModule& module, const std::string& name);

// The first-PT_LOAD page address of an ELF file, which its lowest mapping starts at less
// the bias (ET_DYN; an ET_EXEC file is loaded where it says).
struct LoadLayout {
  uint64_t first_load = 0;
  bool dynamic_object = false;  // ET_DYN
};
Result<LoadLayout> load_layout(const std::string& file);

}  // namespace callprof::inject

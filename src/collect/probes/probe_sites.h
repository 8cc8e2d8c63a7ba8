// Where probe mode puts its uprobes (SPEC §1.3): the functions of a module whose names
// match, each with its entry and every instruction that leaves it — `ret`, and a direct
// `jmp` out of the function (a tail call) — found by disassembling the function (capstone).
// Exits are probed instead of using return probes: a uretprobe replaces the return address
// on the stack, and a C++ exception unwinding through such a frame finds no unwind
// information there and calls std::terminate (docs/probes.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/pattern.h"
#include "util/result.h"

namespace callprof::probes {

struct ProbeFunction {
  std::string module;                  // path of the ELF file
  std::string name;                    // demangled
  uint64_t address = 0, size = 0;      // ELF virtual address and size of its code
  uint64_t entry_offset = 0;           // file offset of the entry: what the uprobe PMU takes
  std::vector<uint64_t> exit_offsets;  // file offsets of its ret and tail-jump instructions
  // Its first instruction leaves it (a function that is only `jmp other`): no exit site of
  // its own — two probes at one address fire in an order the kernel does not promise — so
  // each entry is also its exit.
  bool entry_exits = false;
};

// The functions of `module` whose demangled (or linkage) name `functions` matches. Only
// defined functions with a size (the symbol table's), in executable code; aliases of one
// address appear once. An instruction capstone cannot decode ends that function's scan
// (its exits found so far are kept).
Result<std::vector<ProbeFunction>> find_probe_functions(const std::string& module, const Pattern& functions);

// Address ranges of GCC's cold parts (`f.cold`): code of some function moved away from it.
using ColdParts = std::vector<std::pair<uint64_t, uint64_t>>;  // [start, end), sorted

// The exits of code at `address` (its bytes in `code`): offsets from the start of `code`.
// A jump into a cold part stays in the function (sp is below the entry's there).
std::vector<uint64_t> find_exits(const uint8_t* code, size_t size, uint64_t address, const ColdParts& cold = {});

}  // namespace callprof::probes

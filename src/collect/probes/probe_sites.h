// Where probe mode puts its uprobes (SPEC §1.3): the functions of a module whose names
// match, each with its entry and every instruction that leaves it — `ret`, and a direct
// `jmp` out of the function (a tail call) — found by disassembling the function (capstone).
// Exits are probed instead of using return probes: a uretprobe replaces the return address
// on the stack, and a C++ exception unwinding through such a frame finds no unwind
// information there and calls std::terminate (docs/probes.md). Leaf functions are the
// exception, and entries move to an instruction the kernel emulates (probe_placement.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "collect/probes/probe_placement.h"
#include "util/pattern.h"
#include "util/result.h"

namespace callprof::probes {

struct ProbeFunction {
  std::string module;              // path of the ELF file
  std::string name;                // demangled
  uint64_t address = 0, size = 0;  // ELF virtual address and size of its code
  uint64_t entry_offset = 0;       // file offset of the function's first instruction
  uint64_t entry_site = 0;         // file offset of the entry probe (a few harmless
                                   // instructions later when the kernel emulates that one)
  bool entry_emulated = false;     // the kernel emulates the instruction at entry_site
  // A leaf: it returns through a uretprobe at entry_site, and exit_offsets is empty.
  bool returns = false;
  std::vector<uint64_t> exit_offsets;  // file offsets of its ret and tail-jump instructions
  std::vector<bool> exit_emulated;     // per exit: a tail jump (emulated), not a ret
  // Its first instruction leaves it (a function that is only `jmp other`): no exit site of
  // its own — two probes at one address fire in an order the kernel does not promise — so
  // each entry is also its exit.
  bool entry_exits = false;
};

// The functions of `module` whose demangled (or linkage) name `functions` matches. Only
// defined functions with a size (the symbol table's), in executable code; aliases of one
// address appear once. An instruction capstone cannot decode ends that function's scan
// (its exits found so far are kept, and it is no leaf). `return_probes`: false keeps every
// function on exit probes (no uretprobes at all).
Result<std::vector<ProbeFunction>> find_probe_functions(const std::string& module, const Pattern& functions,
                                                        bool return_probes = true);

}  // namespace callprof::probes

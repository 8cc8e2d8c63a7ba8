// Where in a function probe mode puts its uprobes, so that the kernel traps as little as
// possible (docs/probes.md, "Placing the probes"). A uprobe is a breakpoint trap, and then
// the original instruction: the kernel emulates a few instructions (push of a register,
// nop, jmp/call rel, jcc) and single-steps every other one out of line — a second trap.
// On the project VM a single-stepped hit costs ~3× an emulated one (bench/README.md), and
// a uretprobe's return (through the kernel's trampoline and the uretprobe system call)
// costs about a tenth of a single-stepped hit.
//
// So: the entry probe goes on the first instruction the kernel emulates when only
// harmless instructions come before it (endbr64, register moves and arithmetic that leave
// the stack pointer and the callee-saved registers alone, no memory access, nothing that
// branches or is branched to); and a leaf function — one that calls nothing, jumps
// nowhere outside itself and makes no system call — returns through a uretprobe instead
// of probes on its `ret`s. No exception can unwind through a leaf's frame (nothing runs
// below it that could throw), which is what rules uretprobes out elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace callprof::probes {

// Address ranges of GCC's cold parts (`f.cold`): code of some function moved away from it.
using ColdParts = std::vector<std::pair<uint64_t, uint64_t>>;  // [start, end), sorted

// Whether x86-64 Linux (4.x to 6.x) emulates the instruction at `code` when a uprobe sits
// on it, instead of single-stepping it: push of a register, nop (0x90, and the kernel's own
// multi-byte nops), jmp rel8/rel32, call rel32, jcc rel8/rel32 (none with a 0x66 prefix).
bool uprobe_emulates(const uint8_t* code, size_t size);

struct Placement {
  uint64_t entry = 0;                // offset of the entry probe from the function's start
  bool entry_emulated = false;       // the kernel emulates the instruction there
  bool leaf = false;                 // may exit through a uretprobe at the entry instead
  std::vector<uint64_t> exits;       // offsets of its ret and tail-jump instructions, but 0
  std::vector<bool> exits_emulated;  // per exit: the kernel emulates it (a tail jmp, not a ret)
  bool entry_exits = false;          // its first instruction leaves it (a function that is `jmp other`)
};

// The placement for the code of one function at `address` (its bytes in `code`).
// `entries`: addresses where other code may enter — the starts of other functions and the
// targets of direct branches in cold parts — which the entry probe must not be moved past.
Placement place_probes(const uint8_t* code, size_t size, uint64_t address, const ColdParts& cold = {},
                       const std::vector<uint64_t>& entries = {});

// The direct branch and call targets in `code` at `address` (sorted): where cold parts
// jump back into their functions.
std::vector<uint64_t> branch_targets(const uint8_t* code, size_t size, uint64_t address);

}  // namespace callprof::probes

// The machine code of one function of an ELF file, decoded for annotate --disasm (the
// profile stores names and lines, not code: this reads the module's file, as perf annotate
// and pprof -disasm do).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace callprof {

struct DecodedInstruction {
  uint64_t address = 0;  // ELF virtual address
  std::string text;      // "mnemonic operands"
  // Its line in the function itself (where code was inlined: the inlined call's line), from
  // the file's debug info; "" and 0 when unknown.
  std::string file;
  uint32_t line = 0;
};

// The function whose entry is at ELF address `entry` in the module recorded at `path` (its
// file looked for as the symbolizers do: under --symfs first), up to the end its symbol
// gives (without a size: the next function symbol, at most 64 KiB). An error when the file
// is missing, is another build than `build_id` (lowercase hex, "" to skip the check), or has
// no code there.
Result<std::vector<DecodedInstruction>> disassemble_function(const std::string& path, const std::string& build_id,
                                                             uint64_t entry);

}  // namespace callprof

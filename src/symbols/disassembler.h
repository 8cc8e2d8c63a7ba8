// x86-64 decoding with capstone, loaded on first use: linked as usual, its 77,000
// relocations cost every callprof command about 6 ms and 370 page faults at start-up (its
// dlopen: 0.9-1.4 ms on the AMD EPYC VM), while only probe placement, annotate --disasm,
// the hook-site listing of GCC-built programs and an exact attach's check of return
// addresses (target/inject/process_unwinder.h) decode instructions.
#pragma once

#include <capstone/capstone.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace callprof {

// One decoder handle (x86-64) with one reusable instruction.
class Disassembler {
 public:
  // `option` on (CS_OPT_DETAIL for operands and groups, CS_OPT_SKIPDATA to step over bytes
  // that decode to nothing); CS_OPT_INVALID: none.
  explicit Disassembler(cs_opt_type option = CS_OPT_INVALID);
  ~Disassembler();
  Disassembler(const Disassembler&) = delete;
  Disassembler& operator=(const Disassembler&) = delete;

  // False when capstone could not be loaded or opened; error() says why.
  bool ok() const { return insn_ != nullptr; }
  const std::string& error() const { return error_; }

  // Decodes the instruction at *code (capstone's cs_disasm_iter: advances code, size and
  // address past it); false at the end or at bytes that decode to nothing.
  bool next(const uint8_t** code, size_t* size, uint64_t* address);
  const cs_insn& insn() const { return *insn_; }
  // Whether the `size` bytes at `code` end with a call instruction: a return address
  // follows one, so a stack slot whose address does not is no frame's.
  bool ends_with_call(const uint8_t* code, size_t size);
  // The registers the last instruction reads and writes (needs CS_OPT_DETAIL).
  bool registers(const cs_insn& insn, cs_regs read, uint8_t* nread, cs_regs written, uint8_t* nwritten) const;

  struct Api;  // capstone's functions, found at the first load

 private:
  const Api* api_ = nullptr;
  csh handle_ = 0;
  cs_insn* insn_ = nullptr;
  std::string error_;
};

}  // namespace callprof

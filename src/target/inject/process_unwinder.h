// The stacks of a process's threads that callprof holds stopped with ptrace, unwound with
// libdwfl (DWARF CFI): one session per process, so each module's call frame information is
// read once however many threads are unwound (a session per thread read it again each time:
// 64 threads took most of a second).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbols/disassembler.h"

struct Dwfl;

namespace callprof::inject {

struct UnwoundFrame {
  uint64_t pc = 0;          // the innermost frame's pc; a return address for the others
  uint64_t sp = 0;          // the stack pointer in that frame (0: unknown)
  bool activation = false;  // pc is where the thread stopped, not a return address
  uint64_t code() const { return activation ? pc : pc - 1; }  // an address inside the instruction
};

class ProcessUnwinder {
 public:
  // Reports the modules `pid` has mapped now; ok() false when libdwfl could not.
  explicit ProcessUnwinder(pid_t pid);
  ~ProcessUnwinder();
  ProcessUnwinder(const ProcessUnwinder&) = delete;
  ProcessUnwinder& operator=(const ProcessUnwinder&) = delete;

  bool ok() const { return attached_; }
  // Thread `tid`'s frames, innermost first, at most `max`: it must be stopped by us. Ends
  // where libdwfl cannot unwind further; `whole` (when given) says whether that was the
  // stack's base (a frame whose caller the CFI marks as none: _start, start_thread, clone3).
  // It also ends, not whole, at a return address that follows no call instruction: a stack
  // changing under the CFI's description of it (libgcc's unwinder installing a catch's
  // context, where the slot read is the landing pad's address or a return address left
  // from an earlier call).
  std::vector<UnwoundFrame> frames(pid_t tid, size_t max, bool* whole = nullptr);
  Dwfl* dwfl() const { return dwfl_; }
  // The symbol `address` lies in (the symbol table's name), "" when none.
  std::string function_name(uint64_t address) const;

 private:
  bool follows_call(uint64_t return_address);

  pid_t pid_;
  Dwfl* dwfl_ = nullptr;
  bool attached_ = false;
  Disassembler calls_;  // loaded here, not while the threads are stopped
  // Return addresses checked: threads of one program share most of them (one read each).
  std::unordered_map<uint64_t, bool> checked_returns_;
};

}  // namespace callprof::inject

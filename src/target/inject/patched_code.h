// A process's functions built with -fpatchable-function-entry (docs/attach.md, "Programs
// built to be attached"): the sites listed in each module's __patchable_function_entries
// section, read relocated from the process's memory. The runtime turns them into calls at
// the window's start (runtime/patched_calls.h); callprof, holding every thread stopped
// then, moves a thread that stands inside a site's nops past them and finds the frames
// of patched functions open on each stack, with the slots of their return addresses.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "target/inject/cold_parts.h"
#include "target/inject/mapped_modules.h"
#include "target/inject/open_frames.h"
#include "target/inject/process_unwinder.h"

namespace callprof::inject {

inline constexpr uint64_t kPatchBytes = 5;  // call rel32, over the first 5 bytes of nops

class PatchedCode {
 public:
  PatchedCode(pid_t pid, const std::vector<MappedModule>& modules);
  bool empty() const { return sites_.empty(); }
  size_t sites() const { return sites_.size(); }

  // Each module's section in the process: [start, end), as the runtime's settings say
  // "patchable START END".
  const std::vector<std::pair<uint64_t, uint64_t>>& ranges() const { return ranges_; }

  // A thread at `pc` inside a site's nops (past its first byte) would run the rest of a
  // call: where it goes on instead (the site + 5, after the nops); 0 when it is not there.
  uint64_t past_nops(uint64_t pc) const;

  // The frames of patched functions open on stopped thread `tid`'s stack, outermost first,
  // each with its return-address slot (OpenFrame::returns); none when the stack could not
  // be unwound to its base or a slot does not hold the return address the unwinding found.
  // A thread inside libgcc's unwinder (`unwinding` set) is walking its own stack: its
  // slots must not change under the walk, and are marked to be replaced at the catch.
  std::vector<OpenFrame> open_frames(ProcessUnwinder& unwinder, pid_t tid, bool* unwinding = nullptr) const;

  // The rule for one frame (unit-tested): a function whose nops are at `site` is open at
  // `pc` when the frame called something (not `activation`), or when the thread stopped
  // past the site's first byte.
  static bool frame_open(uint64_t site, uint64_t pc, bool activation) { return !activation || pc > site; }

 private:
  uint64_t site_of(uint64_t function) const;  // its site (at it, or after its endbr64); 0: none

  pid_t pid_;
  std::vector<uint64_t> sites_;    // ascending
  std::set<std::string> modules_;  // the paths (as the process maps them) of those with sites
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
  ColdParts cold_;  // their cold parts, read before any thread is stopped
};

}  // namespace callprof::inject

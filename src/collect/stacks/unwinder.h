// User-stack unwinder for sampling mode (SPEC §1.2): turns a Sample's registers and
// copied stack (DWARF CFI, libdwfl) or its kernel frame-pointer chain into the call stack,
// innermost first, in the address space of the sampled process as its mappings describe it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "collect/perf/perf_options.h"
#include "collect/perf/perf_records.h"

namespace callprof::stacks {

// Why a walk ended. Only kRoot proves the stack is complete; everything else is a
// truncated stack that must be shown as such (SPEC §1.2, "honest stacks").
enum class StackEnd : uint8_t {
  Root,             // the CFI of the outermost frame says it has no caller (_start, clone)
  ChainEnd,         // frame pointers ran out; whether that was the root cannot be told
  BadFramePointer,  // the chain led outside the code (a frame without frame pointer)
  StackCopyEnd,     // the walk needed stack bytes beyond the copy taken with the sample
  NoUnwindInfo,     // a pc whose module has no CFI for it (and no frame pointer led on)
  NoModule,         // a pc outside every known file mapping (JIT code, unreported mapping)
  FrameLimit,       // UnwindOptions::max_frames reached
  NoData,           // the sample carries no chain, or no registers and stack
};

const char* to_string(StackEnd end);

struct UserFrame {
  uint64_t pc = 0;
  // A return address: the call instruction ends just before it, and for a call that
  // ends its function pc is already the next function. Symbolize lookup_address().
  // False for the first frame and for a frame interrupted by a signal.
  bool return_address = false;
  bool by_frame_pointer = false;  // DWARF mode: found by the frame-pointer fallback
  uint64_t lookup_address() const { return return_address ? pc - 1 : pc; }
};

struct UserStack {
  std::vector<UserFrame> frames;  // innermost first; frames[0] is the sampled pc
  StackEnd end = StackEnd::NoData;
  bool complete() const { return end == StackEnd::Root; }
};

struct UnwindOptions {
  size_t max_frames = 256;
  // DWARF mode: where a pc has no CFI (JIT code, hand-written assembly), continue by the
  // frame pointer. Frames found so are marked by_frame_pointer.
  bool frame_pointer_fallback = true;
};

class AddressSpace;

// How a frame at some pc finds its caller (x86-64 CFI, the common cases only): the CFA is
// sp + offset, or rbp-based (the function keeps a frame pointer), or something else. The
// return address is at CFA - 8; `saves_bp` says the caller's rbp is stored at CFA + bp_offset.
// Outermost: the CFI says the frame has no caller (_start, a thread's first frame).
struct FrameRule {
  enum Kind : uint8_t { SpOffset, BpBased, Outermost, Unknown } kind = Unknown;
  int32_t offset = 0;
  bool saves_bp = false;
  int32_t bp_offset = 0;
};

// Not thread-safe: one thread unwinds a recording (or one Unwinder per thread).
// Per process it keeps one address space with its libdwfl session, so modules are
// opened and their CFI parsed once, not per sample.
class Unwinder {
 public:
  explicit Unwinder(UnwindOptions options = {});
  ~Unwinder();
  Unwinder(const Unwinder&) = delete;
  Unwinder& operator=(const Unwinder&) = delete;

  // A file (or anonymous region) mapped executable into mapping.pid. A mapping that
  // overlaps earlier ones replaces them (munmap/dlclose leave no record of their own).
  void add_mapping(const perf::Mapping& mapping);
  // exec: the process image is new; its mappings follow.
  void exec_process(uint32_t pid);
  // fork: the child starts with the parent's mappings (shared until one of them changes).
  void fork_process(uint32_t parent_pid, uint32_t child_pid);
  void exit_process(uint32_t pid);

  // Unwinds sample's user stack into out (its vectors are reused: no allocation per
  // sample once they have grown). A pid without mappings gives NoModule.
  void unwind(const perf::Sample& sample, perf::UnwindMode method, UserStack& out);

  // The rule of the frame at lookup address `pc` in pid's address space, from the module's
  // CFI; cached per (pid, pc), so a stack seen before costs a hash lookup per frame.
  // (unwinder_rules.cpp)
  FrameRule frame_rule(uint32_t pid, uint64_t pc);

  // Problems worth telling the user, one line per file and kind (unreadable file,
  // build id mismatch). Grows as mappings are used.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  AddressSpace& space_of(uint32_t pid);

  UnwindOptions options_;
  std::unordered_map<uint32_t, std::shared_ptr<AddressSpace>> spaces_;
  struct RuleKey {
    uint32_t pid;
    uint64_t pc;
    bool operator==(const RuleKey&) const = default;
  };
  struct RuleKeyHash {
    size_t operator()(const RuleKey& k) const { return std::hash<uint64_t>{}(k.pc * 31 + k.pid); }
  };
  std::unordered_map<RuleKey, FrameRule, RuleKeyHash> rules_;
  std::vector<std::string> warnings_;
};

}  // namespace callprof::stacks

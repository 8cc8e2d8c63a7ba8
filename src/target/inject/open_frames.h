// The frames of hooked functions open on the stacks of a stopped process when an attached
// window begins (docs/attach.md, "Frames open at attach"): a hooked function whose entry
// hook has run and whose exit hook has not. Their returns come after the attach; the
// runtime gets them first (wire/attach_frames.h) so that each return closes its frame and
// the calls made meanwhile hang under the path they were made from.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "target/inject/cold_parts.h"
#include "target/inject/mapped_modules.h"
#include "target/inject/process_unwinder.h"

namespace callprof::inject {

struct OpenFrame {
  uint64_t fn = 0;        // as the hooks name it
  uint64_t callsite = 0;  // 0: unknown
  uint64_t sp = 0;        // wire::AttachFrame::sp
  uint16_t returns = 0;   // wire::AttachFrame::returns
};

// Which of the hooked functions a physical frame holds (its own and, with GCC, the inlined
// copies around the pc) are open at its pc.
enum class FrameOpen { All, AllButInnermost, None };

// The rule, from the module's hook call sites (process addresses, ascending): a function
// is hooked when it calls the entry hook within its first bytes. A return address just
// after a call of the exit hook: the innermost function has returned (the thread is in the
// hook). The innermost frame (`activation`): at or before the function's own entry-hook
// call, nothing has been entered yet; `after_exit_call` (the pc follows an exit-hook call
// with no jump between), the innermost has returned. `cold_part`: the pc is in the part
// GCC moved out of `function` (`function.cold`, linked apart, often below it; cold_parts.h),
// which only the function's body jumps to: its entry hook has run.
FrameOpen frame_open(uint64_t function, uint64_t pc, bool activation, const std::vector<uint64_t>& enter_sites,
                     const std::vector<uint64_t>& exit_sites, bool after_exit_call, bool cold_part = false);

// The hooked modules of a process: their hook call sites and compilers.
class HookedCode {
 public:
  // Reads the hook call sites of each module whose file calls the hooks.
  explicit HookedCode(pid_t pid, const std::vector<MappedModule>& modules);
  bool empty() const { return modules_.empty(); }

  // The open frames of stopped thread `tid` whose registers are `regs`, outermost first;
  // none when its stack could not be unwound down to its base (the path they hang under
  // would be cut).
  std::vector<OpenFrame> open_frames(ProcessUnwinder& unwinder, pid_t tid, const user_regs_struct& regs);

 private:
  struct Module {
    std::vector<uint64_t> enter, exit;               // process addresses, ascending
    std::vector<uint64_t> stubs[2];                  // the PLT stubs of the entry and exit hooks
    bool hooks_inlined_copies = false;               // GCC: an inlined copy calls the hooks too
    std::multimap<std::string, uint64_t> functions;  // by name, read when first needed
    bool functions_read = false;
  };
  struct Placed;
  bool place(ProcessUnwinder& unwinder, uint64_t pc, Placed& out);
  bool after_exit_call(const Module& m, uint64_t pc);
  int pending_hook(ProcessUnwinder& unwinder, uint64_t pc);
  uint64_t function_named(Module& m, void* dwfl_module, const char* name);

  pid_t pid_;
  std::map<std::string, Module> modules_;  // by path as the process maps it
  ColdParts cold_;                         // the hooked modules' cold parts
};

}  // namespace callprof::inject

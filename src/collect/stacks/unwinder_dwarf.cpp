// DWARF unwinding with libdwfl (see unwinder_dwarf.h). libdwfl's callbacks get only the
// AddressSpace they were attached with; the walk in progress hangs off it.
#include "collect/stacks/unwinder_dwarf.h"

#include <dwarf.h>

#include "collect/stacks/unwinder_frame_pointers.h"

namespace callprof::stacks {
namespace {

struct Walk {
  const perf::Sample* sample = nullptr;
  StackCopy stack;
  UserStack* out = nullptr;
  size_t max_frames = 0;
  bool read_beyond_stack = false;  // a read failed just above the copy: it was too small
  bool hit_limit = false;
  Dwfl* dwfl = nullptr;
  bool previous_without_module = false;
  // Registers of the last frame reached, where the frame-pointer fallback starts.
  bool has_bp = false;
  uint64_t sp = 0, bp = 0;
};

Walk& walk_of(void* space) { return *static_cast<Walk*>(static_cast<AddressSpace*>(space)->walk); }

// Threads are only reached by id (dwfl_getthread_frames), never enumerated.
pid_t next_thread(Dwfl*, void*, void**) { return 0; }

bool get_thread(Dwfl*, pid_t, void* space, void** thread_arg) {
  *thread_arg = space;
  return true;
}

bool read_memory(Dwfl*, Dwarf_Addr address, Dwarf_Word* result, void* space) {
  Walk& walk = walk_of(space);
  if (walk.stack.read(address, result)) return true;
  // Stack addresses above the copy: no file maps there; say why the walk stopped.
  if (walk.stack.beyond(address) && address - walk.stack.sp < (uint64_t{1} << 30)) {
    walk.read_beyond_stack = true;
    return false;
  }
  return static_cast<AddressSpace*>(space)->read_file_word(address, result);
}

bool set_initial_registers(Dwfl_Thread* thread, void* space) {
  const perf::UserRegs& regs = walk_of(space).sample->regs;
  if (!dwfl_thread_state_registers(thread, 0, perf::kDwarfRegs, regs.data())) return false;
  dwfl_thread_state_register_pc(thread, regs[perf::kDwarfIp]);
  return true;
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = read_memory,
    .set_initial_registers = set_initial_registers,
    .detach = nullptr,
    .thread_detach = nullptr,
};

int on_frame(Dwfl_Frame* frame, void* arg) {
  Walk& walk = *static_cast<Walk*>(arg);
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (!dwfl_frame_pc(frame, &pc, &activation)) return DWARF_CB_ABORT;
  // libdwfl (x86_64 backend) steps over a pc outside every module by frame pointer
  // itself; mark what it found so, as our own fallback does.
  walk.out->frames.push_back(UserFrame{pc, !activation, walk.previous_without_module});
  walk.previous_without_module = dwfl_addrmodule(walk.dwfl, walk.out->frames.back().lookup_address()) == nullptr;
  Dwarf_Word value = 0;
  walk.sp = dwfl_frame_reg(frame, perf::kDwarfSp, &value) == 0 ? value : 0;
  walk.has_bp = dwfl_frame_reg(frame, perf::kDwarfBp, &value) == 0;
  walk.bp = value;
  if (walk.out->frames.size() < walk.max_frames) return DWARF_CB_OK;
  walk.hit_limit = true;
  return DWARF_CB_ABORT;
}

// dwfl_attach_state takes the architecture from a module, so it waits for the first one.
bool attach(AddressSpace& space, Dwfl* dwfl, std::vector<std::string>& warnings) {
  if (dwfl_pid(dwfl) > 0) return true;
  pid_t pid = space.pid() > 0 ? pid_t(space.pid()) : 1;
  if (dwfl_attach_state(dwfl, nullptr, pid, &kThreadCallbacks, &space)) return true;
  add_warning(warnings, std::string("unwinder: libdwfl cannot unwind this process: ") + dwfl_errmsg(-1));
  return false;
}

StackEnd why_stopped(Dwfl* dwfl, const Walk& walk) {
  if (walk.read_beyond_stack) return StackEnd::StackCopyEnd;
  const UserFrame& last = walk.out->frames.back();
  if (dwfl == nullptr || dwfl_addrmodule(dwfl, last.lookup_address()) == nullptr) return StackEnd::NoModule;
  return StackEnd::NoUnwindInfo;
}

}  // namespace

void unwind_dwarf(AddressSpace& space, const perf::Sample& sample, const UnwindOptions& options, UserStack& out,
                  std::vector<std::string>& warnings) {
  if (!sample.has_user_regs) {
    out.end = StackEnd::NoData;
    return;
  }
  Walk walk;
  walk.sample = &sample;
  walk.stack = StackCopy{sample.regs[perf::kDwarfSp], sample.stack.data(), sample.stack.size()};
  walk.out = &out;
  walk.max_frames = options.max_frames;
  walk.has_bp = true;
  walk.sp = sample.regs[perf::kDwarfSp];
  walk.bp = sample.regs[perf::kDwarfBp];
  Dwfl* dwfl = space.dwfl(warnings);
  int result = -1;
  if (dwfl != nullptr && attach(space, dwfl, warnings)) {
    space.walk = &walk;
    walk.dwfl = dwfl;
    result = dwfl_getthread_frames(dwfl, sample.tid > 0 ? pid_t(sample.tid) : 1, on_frame, &walk);
    space.walk = nullptr;
  }
  if (out.frames.empty()) out.frames.push_back(UserFrame{sample.regs[perf::kDwarfIp], false, false});
  if (walk.hit_limit) {
    out.end = StackEnd::FrameLimit;
  } else if (result == 0 && !walk.read_beyond_stack) {
    // libdwfl ends a walk normally when a return address is undefined, which is also
    // what a failed memory read leaves behind: only a walk that read all it needed
    // reached the root.
    out.end = StackEnd::Root;
  } else {
    out.end = why_stopped(dwfl, walk);
    // Code without CFI (JIT, hand-written assembly) often keeps a frame pointer.
    bool no_cfi = out.end == StackEnd::NoUnwindInfo || out.end == StackEnd::NoModule;
    if (options.frame_pointer_fallback && no_cfi && walk.has_bp) {
      size_t before = out.frames.size();
      StackEnd end = walk_frame_pointers(walk.stack, walk.bp, walk.sp, space, options.max_frames, out.frames);
      if (out.frames.size() > before) out.end = end;
    }
  }
}

}  // namespace callprof::stacks

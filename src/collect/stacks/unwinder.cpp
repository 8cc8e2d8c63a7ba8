// Unwinder: one address space per process, dispatch to the frame-pointer or DWARF walk.
#include "collect/stacks/unwinder.h"

#include "collect/stacks/unwinder_address_space.h"
#include "collect/stacks/unwinder_dwarf.h"
#include "collect/stacks/unwinder_frame_pointers.h"

namespace callprof::stacks {

const char* to_string(StackEnd end) {
  switch (end) {
    case StackEnd::Root:
      return "root";
    case StackEnd::ChainEnd:
      return "end of frame-pointer chain";
    case StackEnd::BadFramePointer:
      return "bad frame pointer";
    case StackEnd::StackCopyEnd:
      return "stack copy too small";
    case StackEnd::NoUnwindInfo:
      return "no unwind info";
    case StackEnd::NoModule:
      return "pc outside known files";
    case StackEnd::FrameLimit:
      return "frame limit";
    case StackEnd::NoData:
      return "no stack data";
  }
  return "?";
}

Unwinder::Unwinder(UnwindOptions options) : options_(options) {}
Unwinder::~Unwinder() = default;

AddressSpace& Unwinder::space_of(uint32_t pid) {
  std::shared_ptr<AddressSpace>& space = spaces_[pid];
  if (!space) space = std::make_shared<AddressSpace>(pid);
  return *space;
}

void Unwinder::add_mapping(const perf::Mapping& mapping) {
  if (!rules_.empty()) rules_.clear();  // code may have moved (dlclose, dlopen)
  std::shared_ptr<AddressSpace>& space = spaces_[mapping.pid];
  if (!space) {
    space = std::make_shared<AddressSpace>(mapping.pid);
  } else if (space.use_count() > 1) {
    // Shared with a forked relative since the fork: the change is this process's only.
    space = std::make_shared<AddressSpace>(mapping.pid, *space);
  }
  space->add(mapping);
}

void Unwinder::exec_process(uint32_t pid) {
  spaces_[pid] = std::make_shared<AddressSpace>(pid);
  rules_.clear();
}

void Unwinder::fork_process(uint32_t parent_pid, uint32_t child_pid) {
  if (parent_pid == child_pid) return;  // a new thread: same address space
  auto parent = spaces_.find(parent_pid);
  if (parent != spaces_.end()) spaces_[child_pid] = parent->second;
}

void Unwinder::exit_process(uint32_t pid) { spaces_.erase(pid); }

void Unwinder::unwind(const perf::Sample& sample, perf::UnwindMode method, UserStack& out) {
  out.frames.clear();
  out.end = StackEnd::NoData;
  AddressSpace& space = space_of(sample.pid);
  if (method == perf::UnwindMode::FramePointers) {
    clean_user_chain(sample.user_chain, space, options_.max_frames, out);
  } else {
    unwind_dwarf(space, sample, options_, out, warnings_);
  }
}

}  // namespace callprof::stacks

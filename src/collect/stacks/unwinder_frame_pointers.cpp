// Frame-pointer stacks (see unwinder_frame_pointers.h).
#include "collect/stacks/unwinder_frame_pointers.h"

namespace callprof::stacks {
namespace {

// PERF_CONTEXT_HV/KERNEL/USER/... markers are the top 4095 values; the decoder should
// have removed them, but they must never be taken for addresses.
constexpr uint64_t kPerfContextMarkers = uint64_t(-4095);

}  // namespace

void clean_user_chain(const std::vector<uint64_t>& chain, const AddressSpace& space, size_t max_frames,
                      UserStack& out) {
  out.end = StackEnd::ChainEnd;
  for (uint64_t pc : chain) {
    if (pc >= kPerfContextMarkers) continue;
    if (out.frames.size() >= max_frames) {
      out.end = StackEnd::FrameLimit;
      break;
    }
    // The first entry is the sampled ip, right even where the code is unknown to us.
    const bool first = out.frames.empty();
    if (!first && pc == 0) break;  // the kernel read a zero return address: the chain ends
    if (!first && !space.executable(pc)) {
      out.end = StackEnd::BadFramePointer;
      break;
    }
    out.frames.push_back(UserFrame{pc, !first, false});
  }
  if (out.frames.empty()) out.end = StackEnd::NoData;
}

StackEnd walk_frame_pointers(const StackCopy& stack, uint64_t bp, uint64_t sp, const AddressSpace& space,
                             size_t max_frames, std::vector<UserFrame>& frames) {
  while (true) {
    if (frames.size() >= max_frames) return StackEnd::FrameLimit;
    if (bp == 0) return StackEnd::ChainEnd;
    // A frame record lies above the frame's own stack pointer; callers' records lie
    // above it, which also stops loops.
    if (bp < sp || bp % 8 != 0) return StackEnd::BadFramePointer;
    uint64_t next_bp = 0, ret = 0;
    if (!stack.read(bp, &next_bp) || !stack.read(bp + 8, &ret)) {
      return stack.beyond(bp + 8) && bp < stack.sp + (uint64_t{1} << 30) ? StackEnd::StackCopyEnd
                                                                         : StackEnd::BadFramePointer;
    }
    if (ret == 0) return StackEnd::ChainEnd;
    if (!space.executable(ret)) return StackEnd::BadFramePointer;
    frames.push_back(UserFrame{ret, true, true});
    sp = bp + 16;
    bp = next_bp;
  }
}

}  // namespace callprof::stacks

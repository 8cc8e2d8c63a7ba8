// Frame-pointer stacks: the chain the kernel walked at the sample, cleaned of what
// does not lead through code, and the same walk over a sample's stack copy (the
// fallback of the DWARF unwinder where a pc has no CFI).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collect/stacks/unwinder.h"
#include "collect/stacks/unwinder_address_space.h"

namespace callprof::stacks {

// Copies the kernel's user chain (ip first) into out.frames up to the first entry that
// is not a code address: after a bad return address the rest of the chain was read
// through a garbage frame pointer, so it is dropped and the stack marked truncated.
void clean_user_chain(const std::vector<uint64_t>& chain, const AddressSpace& space, size_t max_frames, UserStack& out);

// Follows saved frame pointers from bp (a frame whose stack pointer is sp) through the
// stack copy, appending the return addresses found; returns why it stopped.
StackEnd walk_frame_pointers(const StackCopy& stack, uint64_t bp, uint64_t sp, const AddressSpace& space,
                             size_t max_frames, std::vector<UserFrame>& frames);

}  // namespace callprof::stacks

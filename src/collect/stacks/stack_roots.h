// Where a sampled stack begins (honest stacks, SPEC §1.2): the program's entry and the C
// runtime's start code (_start, __libc_start_main, __libc_start_call_main), a thread's start
// (clone, clone3, start_thread), or start code without a symbol that called main (a libc
// without symbols) or the dynamic loader's _dl_start/_dl_init (ld.so's _start is a label).
// main is no root: a stack that ends there lost main's callers. docs/sampling.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "collect/stacks/frame_names.h"
#include "model/profile.h"

namespace callprof::stacks {

inline constexpr size_t kNoRoot = SIZE_MAX;

// The index of the frame of `path` (outermost first, as named by FrameNames) at which the
// stack begins, or kNoRoot when it reached no root. Frames before that index lie outside the
// program's or thread's entry: a frame-pointer chain read them through whatever the start
// code left in rbp, so they are garbage. Kernel frames are never user roots.
size_t root_frame(const Profile& p, std::span<const Frame> path);

}  // namespace callprof::stacks

// Attached (docs/attach.md, "Frames open at the attach"): a thread that had frames open
// when the window began and called no hooked function in it is one the runtime never met,
// and its dump has nothing of it. It was somewhere all the same, for the whole window: a
// server's main thread in its accept loop, a thread spinning inside a library. Such a
// thread joins the dump with those frames open from the window's start to its end (no
// call of theirs counted, as with every frame open at an attach) and, off the CPU, the
// window's time the kernel did not count it on one (schedstat, read as the window began
// and as it ended).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "raw_dump_reader.h"
#include "wire/attach_frames.h"

namespace callprof {

struct UnmetThread {
  uint32_t tid = 0;
  std::vector<wire::AttachFrame> frames;  // outermost first
  uint64_t on_cpu_ns = 0;                 // in the window, by the kernel's count
  uint64_t waiting_ns = 0;                // of the rest, runnable but waiting for a CPU
  std::string name;
};

// Adds each of `threads` that `dump` (the attached image's dump of the window) has no
// thread of, running at the dump's end; how many.
size_t add_unmet_threads(RawProcessDump& dump, const std::vector<UnmetThread>& threads);

// Sets each thread's attach_top from `frames` (every thread's frames open at the attach,
// grouped by thread, outermost first): the node of the innermost one the thread's tree has
// on the path of those frames from its root (the runtime pushed them there, so a thread
// met or not has that path). Its system calls and samples from before its first hook in
// the window were made in that frame; at the root, their time would count twice (in the
// frame, open the whole window, and beside it).
void mark_attach_tops(RawProcessDump& dump, const std::vector<wire::AttachFrame>& frames);

}  // namespace callprof

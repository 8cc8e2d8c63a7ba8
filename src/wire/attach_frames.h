// The frames each thread had open when an attached window began (docs/attach.md, "Frames
// open at attach"). callprof stops every thread of the process, unwinds each, keeps the
// frames of hooked functions whose entry hook has run and whose exit hook has not, and
// writes them here before the hooks are pointed at the runtime (or a patched program's
// entries are patched); the runtime pushes a
// thread's frames onto its shadow stack as context (their time counts from the attach,
// no call of theirs is counted), as frames inherited at fork are.
//
// The file: one AttachFramesHeader, then `count` AttachFrame entries grouped by thread,
// each thread's outermost frame first.
#pragma once

#include <stdint.h>

namespace callprof::wire {

inline constexpr uint64_t kAttachFramesMagic = 0x5246545441505043ull;  // "CPPATTFR"
inline constexpr uint32_t kAttachFramesVersion = 2;

struct AttachFramesHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t count;
};

struct AttachFrame {
  uint32_t tid;
  uint16_t taken;     // 0 in the file; the runtime marks a thread's entries as it uses them
  uint16_t returns;   // a patched program's frame (runtime/patched_calls.h): `sp` is the slot of
                      // its return address, `callsite` the address there, which the runtime
                      // replaces so that the frame's return is seen: 1 at once; 2 at the
                      // thread's next catch (it was inside the unwinder, walking its stack)
  uint64_t fn;        // as the hooks name it: the function's address (an inlined copy's: the out-of-line one)
  uint64_t callsite;  // where its caller called it (0: unknown)
  uint64_t sp;        // as the hooks' stack pointers order frames: just below the frame's return address
};
static_assert(sizeof(AttachFrame) == 32);

}  // namespace callprof::wire

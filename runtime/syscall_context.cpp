#include "syscall_context.h"

#include <stddef.h>

#include "process.h"
#include "raw_syscall.h"
#include "wire/syscall_context.h"

namespace callprof::rt {
namespace {

static_assert(offsetof(Frame, node) == 0, "the probe reads a frame's node at its start");

void tell_probe(unsigned long layout, const void* depth, const void* frames, const void* nodes) {
  if (!process().config.syscall_context) return;
  sys::call(SYS_prctl, long(CALLPROF_CONTEXT_PRCTL), long(layout), sys::p(depth), sys::p(frames), sys::p(nodes));
}

}  // namespace

void announce_syscall_context(const ThreadState* s) {
  const ThreadProfile& p = s->profile;
  const long busy = reinterpret_cast<const char*>(&s->busy) - reinterpret_cast<const char*>(p.depth_address());
  const unsigned long busy_offset = busy > 0 && busy <= 0x7fff ? static_cast<unsigned long>(busy) : 0;  // 0: none
  tell_probe(CALLPROF_CONTEXT_LAYOUT(sizeof(Frame), sizeof(DumpNode), offsetof(DumpNode, fn), busy_offset),
             p.depth_address(), p.frames_address(), p.nodes_address());
}

void withdraw_syscall_context() { tell_probe(CALLPROF_CONTEXT_VERSION, nullptr, nullptr, nullptr); }

void mute_syscall_context() {
  static const char some_address = 0;  // the probe takes a null depth address as a withdrawal
  tell_probe(CALLPROF_CONTEXT_VERSION | CALLPROF_CONTEXT_MUTED, &some_address, nullptr, nullptr);
}

}  // namespace callprof::rt

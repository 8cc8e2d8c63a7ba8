// setjmp interposition. A longjmp's target stack pointer cannot tell a function from the
// functions inlined into it (they share its frame), so each setjmp records the shadow
// stack's depth; longjmp then closes exactly the frames above it. The trampolines must
// not disturb setjmp's view of its caller: they record, restore the argument registers
// and stack, and tail-jump to glibc's function.
#include <dlfcn.h>
#include <setjmp.h>

#include "attach_replacements.h"
#include "process.h"
#include "symbol_presence.h"

using namespace callprof::rt;

extern "C" {
__attribute__((visibility("hidden"))) void* callprof_real_setjmp[3];
__attribute__((visibility("hidden"))) void callprof_note_setjmp(uint64_t env, int which);
}

namespace {
// What glibc exports (sigsetjmp is a macro for __sigsetjmp).
const char* const kSetjmpNames[3] = {"_setjmp", "setjmp", "__sigsetjmp"};
}  // namespace

// Called by the trampolines with the jmp_buf and which function was called.
void callprof_note_setjmp(uint64_t env, int which) {
  if (!callprof_real_setjmp[which]) callprof_real_setjmp[which] = next_symbol(kSetjmpNames[which]);
  ThreadState* s = t_state;
  if (!s || s->busy) return;
  JumpTarget& t = s->jump_targets[s->next_jump_target++ % kJumpTargets];
  t = JumpTarget{env, s->profile.top_sp(), s->profile.top_entry(), s->profile.depth(), 0};
}

// Entry: rsp = 8 mod 16. Save rdi/rsi (jmp_buf, savemask), align, call, restore, jump.
#define CALLPROF_SETJMP_TRAMPOLINE(name, index) \
  asm(".text\n"                                 \
      ".globl " #name                           \
      "\n"                                      \
      ".type " #name ", @function\n" #name      \
      ":\n"                                     \
      "  push %rdi\n"                           \
      "  push %rsi\n"                           \
      "  sub $8, %rsp\n"                        \
      "  mov $" #index                          \
      ", %esi\n"                                \
      "  call callprof_note_setjmp\n"           \
      "  add $8, %rsp\n"                        \
      "  pop %rsi\n"                            \
      "  pop %rdi\n"                            \
      "  jmp *callprof_real_setjmp+8*" #index   \
      "(%rip)\n"                                \
      ".size " #name ", .-" #name               \
      "\n"                                      \
      ".globl callprof_own_" #name              \
      "\n"                                      \
      ".hidden callprof_own_" #name             \
      "\n"                                      \
      ".set callprof_own_" #name ", " #name "\n");

CALLPROF_SETJMP_TRAMPOLINE(_setjmp, 0)
CALLPROF_SETJMP_TRAMPOLINE(setjmp, 1)
CALLPROF_SETJMP_TRAMPOLINE(__sigsetjmp, 2)

// The trampolines under hidden names, which bind here (attach_replacements.h).
extern "C" void callprof_own__setjmp();
extern "C" void callprof_own_setjmp();
extern "C" void callprof_own___sigsetjmp();

namespace callprof::rt {

uint64_t setjmp_replacement(const char* name) {
  static const OwnFunction kOwn[] = {{"_setjmp", reinterpret_cast<const void*>(&callprof_own__setjmp)},
                                     {"setjmp", reinterpret_cast<const void*>(&callprof_own_setjmp)},
                                     {"__sigsetjmp", reinterpret_cast<const void*>(&callprof_own___sigsetjmp)}};
  return own_function(kOwn, name);
}

__attribute__((constructor)) static void resolve_setjmp() {
  for (int i = 0; i < 3; ++i)
    if (!callprof_real_setjmp[i]) callprof_real_setjmp[i] = next_symbol(kSetjmpNames[i]);
}

// The depth recorded by the setjmp that filled `env`, if the frame that called it is
// still the same activation; otherwise UINT32_MAX.
uint32_t setjmp_depth(ThreadState* s, uint64_t env) {
  for (uint32_t i = 0; i < kJumpTargets; ++i) {
    const JumpTarget& t = s->jump_targets[i];
    if (t.env != env || t.depth > s->profile.depth()) continue;
    if (t.depth == 0) return 0;
    const Frame& f = s->profile.open_frames()[t.depth - 1];
    if (f.sp == t.top_sp && f.entry_tsc == t.top_entry) return t.depth;
  }
  return UINT32_MAX;
}

}  // namespace callprof::rt

// The compiler's entry/exit hooks (-finstrument-functions): the hot path (hook_path.h).
#include "hook_path.h"

using namespace callprof::rt;

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

CALLPROF_EXPORT void __cyg_profile_func_enter(void* fn, void* callsite) {
  // Where this hook returns to tells an inlined instance (the host's code) from a call.
  hook_enter(reinterpret_cast<uint64_t>(fn), reinterpret_cast<uint64_t>(callsite), CALLPROF_CALLER_SP(),
             reinterpret_cast<uint64_t>(__builtin_return_address(0)));
}

CALLPROF_EXPORT void __cyg_profile_func_exit(void* fn, void* /*callsite*/) {
  hook_exit(reinterpret_cast<uint64_t>(fn), CALLPROF_CALLER_SP());
}

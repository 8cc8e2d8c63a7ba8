// The floor: the cheapest entry/exit hooks that still take a timestamp. Each hook reads the
// TSC once and stores it to a thread-local variable (so the read cannot be dropped) -- two
// timestamp reads per call and nothing else. LD_PRELOAD it into a program built with
// -finstrument-functions; its per-call cost is the yardstick for callprof's (SPEC §6).
#include <stdint.h>
#include <x86intrin.h>

// Exported, so the compiler must keep the stores (a static variable nobody reads would be
// dropped, leaving a bare rdtsc). Initial-exec TLS: one %fs-relative store, as in callprof.
__attribute__((visibility("default"))) __thread uint64_t callprof_floor_last_tsc
    __attribute__((tls_model("initial-exec")));

__attribute__((visibility("default"))) void __cyg_profile_func_enter(void* fn, void* callsite) {
  (void)fn;
  (void)callsite;
  callprof_floor_last_tsc = __rdtsc();
}

__attribute__((visibility("default"))) void __cyg_profile_func_exit(void* fn, void* callsite) {
  (void)fn;
  (void)callsite;
  callprof_floor_last_tsc = __rdtsc();
}

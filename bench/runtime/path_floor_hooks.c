// The path floor: the least any exact per-path profiler does per call, the yardstick for the
// cases whose calling context tree lies far beyond the caches (issue 28's manypaths), where
// the floor of two TSC reads touches no memory at all and no profiler that tells paths apart
// can come near it. Here each call reads the TSC twice, as the floor does, and updates its
// path's own record: the record is found by one hash of the caller's path and the function,
// probed once (two paths that meet in a slot share it), counted at the entry and given the
// call's time at the return. Nothing else: no self time, no minimum or maximum, no call
// sites, no collisions resolved, no longjmp, signals or threads looked after (the cases run
// one thread; the records are plain adds). callprof's node holds more (64 bytes against 16),
// but whatever a profiler keeps per path, the call must reach that path's memory once.
//
// The table: 2^CALLPROF_PATH_FLOOR_LOG2 records of 16 bytes (default 2^20: 16 MiB, as large
// as manypaths' tree of some 20 MiB), on huge pages where the system gives them (callprof
// asks the same for a large tree). LD_PRELOAD it into a program built with
// -finstrument-functions.
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>

#define PATH_FLOOR_DEPTH 4096

struct PathRecord {
  uint64_t calls, ticks;
};
struct PathFrame {
  uint64_t path, entry_tsc;
};

// Exported, so the compiler keeps every store (as floor_hooks.c does).
__attribute__((visibility("default"))) struct PathRecord* callprof_path_floor_table;
static uint64_t g_mask;
static __thread struct PathFrame t_frames[PATH_FLOOR_DEPTH] __attribute__((tls_model("initial-exec")));
static __thread uint32_t t_depth __attribute__((tls_model("initial-exec")));

__attribute__((constructor)) static void map_table(void) {
  const char* env = getenv("CALLPROF_PATH_FLOOR_LOG2");
  long log2 = env ? strtol(env, NULL, 10) : 20;
  if (log2 < 4 || log2 > 30) log2 = 20;
  const uint64_t bytes = (uint64_t)sizeof(struct PathRecord) << log2;
  void* m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) abort();
  madvise(m, bytes, MADV_HUGEPAGE);
  callprof_path_floor_table = m;
  g_mask = (1ull << log2) - 1;
}

static inline uint64_t path_of(uint64_t parent, uint64_t fn) {
  uint64_t h = (parent ^ fn) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

__attribute__((visibility("default"))) void __cyg_profile_func_enter(void* fn, void* callsite) {
  (void)callsite;
  const uint64_t now = __rdtsc();
  const uint32_t d = t_depth++;
  if (d >= PATH_FLOOR_DEPTH) return;
  const uint64_t parent = d ? t_frames[d - 1].path : 0;
  const uint64_t path = path_of(parent, (uint64_t)fn);
  t_frames[d].path = path;
  t_frames[d].entry_tsc = now;
  callprof_path_floor_table[path & g_mask].calls += 1;
}

__attribute__((visibility("default"))) void __cyg_profile_func_exit(void* fn, void* callsite) {
  (void)fn;
  (void)callsite;
  const uint64_t now = __rdtsc();
  const uint32_t d = --t_depth;
  if (d >= PATH_FLOOR_DEPTH) return;
  callprof_path_floor_table[t_frames[d].path & g_mask].ticks += now - t_frames[d].entry_tsc;
}

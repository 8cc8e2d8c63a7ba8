#include "config.h"

#include <string.h>
#include <sys/resource.h>

#include "early_env.h"
#include "parse_number.h"
#include "raw_syscall.h"
#include "wire/raw_dump.h"

namespace callprof::rt {
namespace {

uint64_t env_u64(const char* name, uint64_t fallback, uint64_t lo, uint64_t hi) {
  const char* v = runtime_getenv(name);
  if (!v || *v < '0' || *v > '9') return fallback;
  const char* end = nullptr;
  const uint64_t n = parse_u64(v, 10, &end);
  if (*end || n < lo || n > hi) return fallback;
  return n;
}

bool env_flag(const char* name, bool fallback) { return env_u64(name, fallback ? 1 : 0, 0, 1) != 0; }

bool env_path(const char* name, char* out, uint64_t cap) {
  const char* v = runtime_getenv(name);
  out[0] = 0;
  if (!v || !*v || strlen(v) >= cap) return false;
  memcpy(out, v, strlen(v) + 1);
  return true;
}

// As many frames as the program's own stack can hold calls (each pushes at least its 8-byte
// return address), so the shadow stack never runs out before the program's stack does. It
// is reserved address space, committed only as deep as the calls go (40 MiB of it for the
// usual 8 MiB limit).
uint32_t stack_frames_for_stack_limit() {
  rlimit r{};
  uint64_t bytes = sys::call(SYS_prlimit64, 0, RLIMIT_STACK, 0, sys::p(&r)) == 0 && r.rlim_cur != RLIM_INFINITY
                       ? r.rlim_cur
                       : (uint64_t(1) << 29);
  if (bytes < (8u << 20)) bytes = 8u << 20;  // threads may ask for larger stacks than the limit
  const uint64_t frames = bytes / 8;
  return uint32_t(frames > (1u << 26) ? (1u << 26) : frames);
}

uint32_t power_of_two_at_most(uint32_t n) {
  uint32_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// CALLPROF_CALIBRATE="gcc:/path/of/the/executable" (or clang): only that compiler's hooks
// are measured, and only in that executable (an image it execs may be the other's). The
// calibration is a third of a short recording's fixed cost.
uint8_t compilers_to_calibrate() {
  const char* v = runtime_getenv("CALLPROF_CALIBRATE");
  const char* colon = v;
  while (colon && *colon && *colon != ':') ++colon;
  if (!colon || !*colon) return 3;
  char exe[4096];
  const long n = sys::readlink("/proc/self/exe", exe, sizeof exe);
  if (n <= 0 || uint64_t(n) != strlen(colon + 1) || memcmp(exe, colon + 1, uint64_t(n)) != 0) return 3;
  if (colon - v == 3 && memcmp(v, "gcc", 3) == 0) return 1;
  return colon - v == 5 && memcmp(v, "clang", 5) == 0 ? 2 : 3;
}

}  // namespace

bool read_config(RuntimeConfig* c) {
  *c = RuntimeConfig{};
  if (!env_path("CALLPROF_OUTPUT_DIR", c->output_dir, sizeof c->output_dir)) return false;
  // At most 2^28: the index numbers nodes in 28 bits (kSlotNodeMask), in 2^29 slots.
  c->node_budget = uint32_t(env_u64("CALLPROF_MAX_NODES", c->node_budget, 1024, 1u << 28));
  c->stack_frames = uint32_t(env_u64("CALLPROF_STACK_FRAMES", stack_frames_for_stack_limit(), 64, 1u << 26));
  c->limits.max_depth = uint32_t(env_u64("CALLPROF_MAX_DEPTH", UINT32_MAX, 1, UINT32_MAX));
  c->min_duration_ns = env_u64("CALLPROF_MIN_NS", 0, 0, UINT64_MAX);
  c->timeline_events = uint32_t(env_u64("CALLPROF_TIMELINE_EVENTS", 0, 1, 1u << 24));
  c->timeline_min_ns = env_u64("CALLPROF_TIMELINE_MIN_NS", 0, 0, UINT64_MAX);
  c->events.offcpu = env_flag("CALLPROF_OFFCPU", true);
  c->events.faults = env_flag("CALLPROF_FAULTS", false);
  // Page faults come in bursts (one record each): their ring is larger.
  const uint32_t ring_pages = c->events.faults ? 32 : 4;
  c->events.ring_pages = power_of_two_at_most(uint32_t(env_u64("CALLPROF_RING_PAGES", ring_pages, 1, 1024)));
  c->alloc = env_flag("CALLPROF_ALLOC", false);
  c->libcalls = env_flag("CALLPROF_LIBCALLS", false);
  c->compensate = env_flag("CALLPROF_COMPENSATE", true);
  c->calibrate = compilers_to_calibrate();
  c->auto_fold = uint8_t(env_u64("CALLPROF_AUTO_FOLD", 1, 0, 3));
  c->ordered_clock = env_flag("CALLPROF_ORDERED_CLOCK", false);
  c->remove_hooks = env_flag("CALLPROF_REMOVE_HOOKS", false);
  c->fold_counts = uint8_t(env_u64("CALLPROF_COUNT_FOLDED", wire::kFoldCountsCalled, 0, wire::kFoldCountsAll));
  c->auto_fold_ns = env_u64("CALLPROF_AUTO_FOLD_NS", 0, 1, 1000000);
  c->syscall_context = env_flag("CALLPROF_SYSCALL_CONTEXT", false);
  c->snapshot_signal = int(env_u64("CALLPROF_SNAPSHOT_SIGNAL", 0, 1, 64));
  c->snapshot_interval_ms = uint32_t(env_u64("CALLPROF_SNAPSHOT_INTERVAL_MS", 0, 1, 86400000));
  env_path("CALLPROF_FUNCTIONS", c->functions_file, sizeof c->functions_file);
  return true;
}

}  // namespace callprof::rt

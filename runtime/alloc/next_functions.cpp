// Resolving the next definitions once, and the bootstrap arena for allocations made while
// resolving (glibc's dlsym may call calloc/malloc, which land back in our malloc).
#include "next_functions.h"

#include <dlfcn.h>

#include "../symbol_presence.h"

namespace callprof::alloc {
namespace {

constexpr const char* kNames[] = {"malloc",
                                  "free",
                                  "calloc",
                                  "realloc",
                                  "posix_memalign",
                                  "aligned_alloc",
                                  "memalign",
                                  "valloc",
                                  "pvalloc",
                                  "_Znwm",
                                  "_Znam",
                                  "_ZnwmRKSt9nothrow_t",
                                  "_ZnamRKSt9nothrow_t",
                                  "_ZnwmSt11align_val_t",
                                  "_ZnamSt11align_val_t",
                                  "_ZnwmSt11align_val_tRKSt9nothrow_t",
                                  "_ZnamSt11align_val_tRKSt9nothrow_t",
                                  "_ZdlPv",
                                  "_ZdaPv",
                                  "_ZdlPvm",
                                  "_ZdaPvm",
                                  "_ZdlPvRKSt9nothrow_t",
                                  "_ZdaPvRKSt9nothrow_t",
                                  "_ZdlPvSt11align_val_t",
                                  "_ZdaPvSt11align_val_t",
                                  "_ZdlPvmSt11align_val_t",
                                  "_ZdaPvmSt11align_val_t",
                                  "_ZdlPvSt11align_val_tRKSt9nothrow_t",
                                  "_ZdaPvSt11align_val_tRKSt9nothrow_t"};
static_assert(sizeof kNames / sizeof kNames[0] == size_t(Next::kCount));

__thread int t_resolving __attribute__((tls_model("initial-exec")));

constexpr size_t kHeader = 16;  // the block size, right before the block
size_t g_arena_used;

// Resolve before the program runs, so that later threads find everything resolved
// (objects initialised earlier may already have resolved some on demand).
__attribute__((constructor)) void resolve_all() {
  for (size_t i = 0; i < size_t(Next::kCount); ++i) next_function(Next(i));
}

}  // namespace

// Absence is not remembered: libstdc++ may be dlopen'ed later.
void* g_next[size_t(Next::kCount)];
alignas(64) char g_arena[kArenaBytes];

__attribute__((noinline, cold)) void* resolve_next(Next which) {
  if (t_resolving) return nullptr;
  t_resolving = 1;
  // Not dlsym alone: a failed dlsym allocates its error string, and a C program has no
  // operator new.
  void* f = callprof::rt::next_symbol(kNames[size_t(which)]);
  t_resolving = 0;
  if (f) __atomic_store_n(&g_next[size_t(which)], f, __ATOMIC_RELEASE);
  return f;
}

void* arena_alloc(size_t bytes, size_t alignment) {
  if (alignment < kHeader) alignment = kHeader;
  if (bytes > kArenaBytes || (alignment & (alignment - 1)) != 0 || alignment > kArenaBytes / 4) return nullptr;
  size_t used = __atomic_load_n(&g_arena_used, __ATOMIC_RELAXED);
  size_t start, end;
  do {
    start = (used + kHeader + alignment - 1) & ~(alignment - 1);
    end = start + bytes;
    if (end > kArenaBytes) return nullptr;
  } while (!__atomic_compare_exchange_n(&g_arena_used, &used, end, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  *reinterpret_cast<size_t*>(g_arena + start - kHeader) = bytes;
  return g_arena + start;
}

size_t arena_block_size(const void* p) {
  return *reinterpret_cast<const size_t*>(static_cast<const char*>(p) - kHeader);
}

}  // namespace callprof::alloc

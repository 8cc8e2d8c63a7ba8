// libcallprof-alloc.so: the C allocation functions. Each forwards to the next definition
// and charges what succeeded: allocations with the bytes requested, frees of non-null
// pointers. Before the next malloc is known (inside dlsym) requests go to the arena.
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "charge.h"
#include "next_functions.h"

using namespace callprof::alloc;

namespace callprof::alloc {
__thread uint8_t t_in_new __attribute__((tls_model("initial-exec")));
__thread uint8_t t_in_delete __attribute__((tls_model("initial-exec")));
}  // namespace callprof::alloc

namespace {

using MallocFn = void* (*)(size_t);
using FreeFn = void (*)(void*);
using CallocFn = void* (*)(size_t, size_t);
using ReallocFn = void* (*)(void*, size_t);
using PosixMemalignFn = int (*)(void**, size_t, size_t);
using AlignedFn = void* (*)(size_t, size_t);

constexpr size_t kPage = 4096;

void* counted(void* p, size_t bytes) {
  if (p) charge_alloc(bytes);
  return p;
}

// realloc of a block from the arena: it cannot grow there, so it moves out (never freed).
void* realloc_from_arena(void* old, size_t bytes) {
  MallocFn next_malloc = next<MallocFn>(Next::kMalloc);
  void* p = next_malloc ? next_malloc(bytes) : arena_alloc(bytes, 16);
  if (!p) return nullptr;
  const size_t old_bytes = arena_block_size(old);
  memcpy(p, old, old_bytes < bytes ? old_bytes : bytes);
  if (next_malloc) charge_alloc(bytes);
  return p;
}

void* counted_realloc(void* old, size_t bytes) {
  if (old && in_arena(old)) return realloc_from_arena(old, bytes);
  ReallocFn f = next<ReallocFn>(Next::kRealloc);
  if (!f) return old ? nullptr : arena_alloc(bytes, 16);
  void* p = f(old, bytes);
  if (p) charge_alloc(bytes);
  // Moved, or freed by realloc(p, 0) (which returns null then; a failure keeps `old`).
  if (old && (p ? p != old : bytes == 0)) charge_free();
  return p;
}

void* counted_aligned(Next which, size_t alignment, size_t bytes) {
  AlignedFn f = next<AlignedFn>(which);
  if (!f) return arena_alloc(bytes, alignment);
  return counted(f(alignment, bytes), bytes);
}

}  // namespace

extern "C" {

CALLPROF_ALLOC_EXPORT void* malloc(size_t bytes) {
  MallocFn f = next<MallocFn>(Next::kMalloc);
  if (__builtin_expect(f == nullptr, 0)) return arena_alloc(bytes, 16);
  return counted(f(bytes), bytes);
}

CALLPROF_ALLOC_EXPORT void free(void* p) {
  if (!p) return;
  if (__builtin_expect(in_arena(p), 0)) return;
  FreeFn f = next<FreeFn>(Next::kFree);
  if (!f) return;  // cannot happen: p came from the next malloc, so it is known
  f(p);
  charge_free();
}

CALLPROF_ALLOC_EXPORT void* calloc(size_t n, size_t size) {
  CallocFn f = next<CallocFn>(Next::kCalloc);
  if (__builtin_expect(f == nullptr, 0)) {
    size_t bytes;
    return __builtin_mul_overflow(n, size, &bytes) ? nullptr : arena_alloc(bytes, 16);  // arena memory is zero
  }
  return counted(f(n, size), n * size);  // success implies no overflow
}

CALLPROF_ALLOC_EXPORT void* realloc(void* old, size_t bytes) { return counted_realloc(old, bytes); }

// Not forwarded: glibc's reallocarray calls realloc through the PLT, which would count
// twice. The overflow check is all it adds.
CALLPROF_ALLOC_EXPORT void* reallocarray(void* old, size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return counted_realloc(old, bytes);
}

CALLPROF_ALLOC_EXPORT int posix_memalign(void** out, size_t alignment, size_t bytes) {
  PosixMemalignFn f = next<PosixMemalignFn>(Next::kPosixMemalign);
  if (!f) {
    void* p = arena_alloc(bytes, alignment);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
  }
  const int rc = f(out, alignment, bytes);
  if (rc == 0) charge_alloc(bytes);
  return rc;
}

CALLPROF_ALLOC_EXPORT void* aligned_alloc(size_t alignment, size_t bytes) {
  return counted_aligned(Next::kAlignedAlloc, alignment, bytes);
}

CALLPROF_ALLOC_EXPORT void* memalign(size_t alignment, size_t bytes) {
  return counted_aligned(Next::kMemalign, alignment, bytes);
}

CALLPROF_ALLOC_EXPORT void* valloc(size_t bytes) {
  MallocFn f = next<MallocFn>(Next::kValloc);
  if (!f) return arena_alloc(bytes, kPage);
  return counted(f(bytes), bytes);
}

CALLPROF_ALLOC_EXPORT void* pvalloc(size_t bytes) {
  MallocFn f = next<MallocFn>(Next::kPvalloc);
  if (!f) return arena_alloc((bytes + kPage - 1) & ~(kPage - 1), kPage);
  return counted(f(bytes), bytes);
}

}  // extern "C"

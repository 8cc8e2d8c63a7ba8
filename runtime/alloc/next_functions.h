// libcallprof-alloc.so: the next definitions (dlsym(RTLD_NEXT)) of the functions it
// interposes, and the small static arena that serves the allocations dlsym itself makes
// before the next malloc is known (the bootstrap problem).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace callprof::alloc {

enum class Next : uint32_t {
  kMalloc,
  kFree,
  kCalloc,
  kRealloc,
  kPosixMemalign,
  kAlignedAlloc,
  kMemalign,
  kValloc,
  kPvalloc,
  kNew,
  kNewArray,
  kNewNothrow,
  kNewArrayNothrow,
  kNewAligned,
  kNewArrayAligned,
  kNewAlignedNothrow,
  kNewArrayAlignedNothrow,
  kDelete,
  kDeleteArray,
  kDeleteSized,
  kDeleteArraySized,
  kDeleteNothrow,
  kDeleteArrayNothrow,
  kDeleteAligned,
  kDeleteArrayAligned,
  kDeleteSizedAligned,
  kDeleteArraySizedAligned,
  kDeleteAlignedNothrow,
  kDeleteArrayAlignedNothrow,
  kCount
};

extern void* g_next[size_t(Next::kCount)];  // resolved definitions, null until resolved
void* resolve_next(Next which);

// The next definition of `which`, resolved on first use; null while this thread is inside
// dlsym (its allocations go to the arena) or when no later object defines the symbol.
inline void* next_function(Next which) {
  void* f = __atomic_load_n(&g_next[size_t(which)], __ATOMIC_ACQUIRE);
  return __builtin_expect(f != nullptr, 1) ? f : resolve_next(which);
}

template <typename F>
inline F next(Next which) {
  return reinterpret_cast<F>(next_function(which));
}

// Bootstrap arena: bump allocation, never reused, zero-filled; a size header precedes
// each block. Null when exhausted.
inline constexpr size_t kArenaBytes = 64 * 1024;
extern char g_arena[kArenaBytes];
void* arena_alloc(size_t bytes, size_t alignment);
size_t arena_block_size(const void* p);
inline bool in_arena(const void* p) {
  return uintptr_t(p) - uintptr_t(g_arena) < kArenaBytes;  // one compare: below wraps around
}

}  // namespace callprof::alloc

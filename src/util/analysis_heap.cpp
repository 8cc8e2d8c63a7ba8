// Allocator settings for analysis commands (see analysis_heap.h).
#include "util/analysis_heap.h"

#include <malloc.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>

#include "util/huge_pages.h"

namespace callprof {
namespace {

// Blocks up to this size come from the heap (glibc's maximum for the mmap threshold);
// larger ones are mapped on their own, and the model advises its own large arrays.
constexpr int kMmapThreshold = 32 << 20;
// The heap grows by this much beyond each request, so the advised range rarely runs out.
constexpr int kTopPad = 512 << 20;

}  // namespace

void tune_heap_for_analysis() {
  // One arena: worker threads' blocks come from the same advised heap, not from per-thread
  // arenas mapped apart (the analysis allocates little from workers, so contention is low).
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);  // fixed: no dynamic threshold, no mmap per array
  mallopt(M_TRIM_THRESHOLD, INT_MAX);         // freed memory stays for the next array
  mallopt(M_TOP_PAD, kTopPad);
  // Grow the heap now by the pad and ask for huge pages on it before anything touches it.
  void* probe = std::malloc(size_t(16) << 20);
  if (probe == nullptr) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(probe);
  std::free(probe);
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0));
  if (end > begin) advise_huge_pages(reinterpret_cast<const void*>(begin), end - begin);
}

}  // namespace callprof

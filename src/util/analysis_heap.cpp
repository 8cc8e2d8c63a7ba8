// Allocator settings for analysis commands (see analysis_heap.h).
#include "util/analysis_heap.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <system_error>
#include <thread>

#include "util/huge_pages.h"

namespace callprof {
namespace {

// Blocks up to this size come from the heap (glibc's maximum for the mmap threshold);
// larger ones are mapped on their own, and the model advises its own large arrays.
constexpr int kMmapThreshold = 32 << 20;
// The heap grows by this much beyond each request, so the advised range rarely runs out.
constexpr int kTopPad = 512 << 20;

// The tuned heap's room not yet handed to warm_heap_ahead: [next, end), huge-page aligned;
// both zero until tune_heap_for_analysis has run.
std::atomic<uintptr_t> warm_next{0};
uintptr_t warm_end = 0;

// One huge page at a time: populating a whole range holds the address-space lock the
// analysis's own mmap and madvise calls need (one 160 MB call stalled them for 0.55 s).
// From the top down: the reader fills the heap from the bottom meanwhile, so the two meet
// once rather than fault the same pages (cold all-rows tree 1.02-1.19 s upwards, 0.98-1.08
// s downwards, three runs each).
void populate(uintptr_t begin, uintptr_t end) {
  for (uintptr_t p = end; p > begin; p -= kHugePage)
    if (madvise(reinterpret_cast<void*>(p - kHugePage), kHugePage, MADV_POPULATE_WRITE) != 0) return;  // Linux < 5.14
}

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
  if (end <= begin) return;
  advise_huge_pages(reinterpret_cast<const void*>(begin), end - begin);
  warm_end = end & ~(kHugePage - 1);
  warm_next = std::min(warm_end, (begin + kHugePage - 1) & ~(kHugePage - 1));
}

void warm_heap_ahead(size_t bytes) {
  if (warm_end == 0 || bytes < kHugePage) return;
  uintptr_t begin = warm_next.load();
  uintptr_t end = 0;
  do {
    end = std::min(warm_end, begin + ((bytes + kHugePage - 1) & ~(kHugePage - 1)));
  } while (!warm_next.compare_exchange_weak(begin, end));
  if (end <= begin) return;
  try {
    std::thread(populate, begin, end).detach();  // left running at exit: it owns nothing
  } catch (const std::system_error&) {
    // No thread: the analysis faults its pages in itself, as it would without this.
  }
}

}  // namespace callprof

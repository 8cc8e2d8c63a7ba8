// Room for a large array on transparent huge pages. A million-node analysis touches several
// hundred MB once each: with 4 KiB pages, page faults and TLB misses were about half of a
// view's time (measured in bench/analysis). The kernel's default THP mode here is
// "madvise", so the array's memory has to ask for them before it is first touched.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace callprof {

inline constexpr size_t kHugePage = size_t(2) << 20;

// Advises huge pages for the whole 2 MiB pages inside [data, data + bytes); a no-op for
// smaller ranges and where the kernel has no THP (madvise's failure changes nothing).
inline void advise_huge_pages(const void* data, size_t bytes) {
  if (bytes < 2 * kHugePage) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// v.reserve(n), the new room advised as huge pages (call before filling v).
template <typename T>
void reserve_huge(std::vector<T>& v, size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace callprof

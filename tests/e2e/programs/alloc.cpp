// Allocation metrics: each function allocates and frees a number of blocks known by
// construction (the comments give alloc_calls / alloc_bytes / free_calls, self). Only
// realloc's moves depend on the allocator: the program counts them and prints the truth.
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "truth.h"

namespace {

void* g_blocks[1000];
void* g_null;  // the optimizer cannot know it stays null
// The compiler must not pair up and elide an allocation with its free.
E2E_QUIET void escape() { asm volatile("" : : "r"(g_blocks) : "memory"); }

struct Plain {
  char bytes[48];
};
struct alignas(64) Aligned {
  char bytes[128];
};

}  // namespace

// 1000 / 100000 / 1000
extern "C" E2E_FN void with_malloc() {
  for (int i = 0; i < 1000; ++i) g_blocks[i] = malloc(100);
  escape();
  for (int i = 0; i < 1000; ++i) free(g_blocks[i]);
}

// 500 / 50000 / 500: one count per new[], not one more for libstdc++'s malloc under it
extern "C" E2E_FN void with_new_array() {
  for (int i = 0; i < 500; ++i) g_blocks[i] = new int[25];
  escape();
  for (int i = 0; i < 500; ++i) delete[] static_cast<int*>(g_blocks[i]);
}

// 300 / 14400 / 300 (GCC deletes through the sized operator delete)
extern "C" E2E_FN void with_new_object() {
  for (int i = 0; i < 300; ++i) g_blocks[i] = new Plain;
  escape();
  for (int i = 0; i < 300; ++i) delete static_cast<Plain*>(g_blocks[i]);
}

// 200 / 25600 / 200: aligned new goes to aligned_alloc in libstdc++
extern "C" E2E_FN void with_aligned_new() {
  for (int i = 0; i < 200; ++i) g_blocks[i] = new Aligned;
  escape();
  for (int i = 0; i < 200; ++i) delete static_cast<Aligned*>(g_blocks[i]);
}

// 100 / 5000 / 100
extern "C" E2E_FN void with_nothrow_new() {
  for (int i = 0; i < 100; ++i) g_blocks[i] = new (std::nothrow) char[50];
  escape();
  for (int i = 0; i < 100; ++i) delete[] static_cast<char*>(g_blocks[i]);
}

// 250 / 8000 / 250
extern "C" E2E_FN int with_calloc() {
  static const char kZero[32] = {};
  int nonzero = 0;
  for (int i = 0; i < 250; ++i) {
    g_blocks[i] = calloc(4, 8);
    nonzero += memcmp(g_blocks[i], kZero, sizeof kZero) != 0;
  }
  escape();
  for (int i = 0; i < 250; ++i) free(g_blocks[i]);
  return nonzero;
}

// 101 / 10 + 20 + ... + 1000 + 30 (= 50530) / moves + 1 (realloc to size 0 frees)
extern "C" E2E_FN unsigned with_realloc() {
  unsigned moves = 0;
  char* p = static_cast<char*>(realloc(nullptr, 10));  // an allocation, nothing freed
  for (size_t size = 20; size <= 1000; size += 10) {
    char* q = static_cast<char*>(realloc(p, size));
    moves += q != p;
    p = q;
  }
  char* q = static_cast<char*>(reallocarray(p, 3, 10));
  moves += q != p;
  p = q;
  g_blocks[0] = p;
  escape();
  if (realloc(p, 0) != nullptr) puts("realloc(p, 0) did not free");  // glibc: frees, returns null
  return moves;
}

// 40 / 10*128 + 10*128 + 10*100 + 5*1000 + 5*1000 (= 13560) / 40
extern "C" E2E_FN void with_aligned_c() {
  int k = 0;
  for (int i = 0; i < 10; ++i, ++k)
    if (posix_memalign(&g_blocks[k], 64, 128) != 0) g_blocks[k] = nullptr;
  for (int i = 0; i < 10; ++i, ++k) g_blocks[k] = aligned_alloc(64, 128);
  for (int i = 0; i < 10; ++i, ++k) g_blocks[k] = memalign(64, 100);
  for (int i = 0; i < 5; ++i, ++k) g_blocks[k] = valloc(1000);
  for (int i = 0; i < 5; ++i, ++k) g_blocks[k] = pvalloc(1000);
  escape();
  for (int i = 0; i < k; ++i) free(g_blocks[i]);
}

// 7 / 49 / 7: libc's own allocations are charged to their caller
extern "C" E2E_FN void with_strdup() {
  for (int i = 0; i < 7; ++i) g_blocks[i] = strdup("abcdef");
  escape();
  for (int i = 0; i < 7; ++i) free(g_blocks[i]);
}

// 0 / 0 / 0: free(NULL) and delete of null count nothing
extern "C" E2E_FN void with_null_frees() {
  for (int i = 0; i < 10; ++i) {
    free(g_null);
    delete static_cast<Plain*>(g_null);
    ::operator delete[](g_null);
  }
}

int main() {
  with_malloc();
  with_new_array();
  with_new_object();
  with_aligned_new();
  with_nothrow_new();
  const int nonzero = with_calloc();
  const unsigned moves = with_realloc();
  with_aligned_c();
  with_strdup();
  with_null_frees();
  printf("truth realloc_moves=%u calloc_nonzero=%d\n", moves, nonzero);
  return 0;
}

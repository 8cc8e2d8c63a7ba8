// A program whose output and exit status must not change under the allocation
// interposer: allocations before main (a static constructor and a constructor function),
// 4 threads allocating, reallocating and freeing at random with their contents checked,
// the new_handler loop and std::bad_alloc, and failed C allocations. Exits with 3.
// Prints the allocations, bytes and frees the workers made (truth for the profile).
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>
#include <string>
#include <vector>

#include "truth.h"

namespace {

constexpr int kThreads = 4;
constexpr int kSlots = 64;
constexpr int kSteps = 20000;

struct Early {
  std::vector<std::string> words;
  Early() {
    for (int i = 0; i < 100; ++i) words.push_back(std::string(20 + i, char('a' + i % 26)));
  }
};
Early g_early;
unsigned g_constructor_sum;

}  // namespace

// 50 / 1 + 2 + ... + 50 (= 1275) / 50, before main
extern "C" E2E_FN __attribute__((constructor)) void before_main() {
  for (int i = 0; i < 50; ++i) {
    unsigned char* p = static_cast<unsigned char*>(malloc(size_t(i) + 1));
    memset(p, i, size_t(i) + 1);
    g_constructor_sum += p[i];
    free(p);
  }
}

namespace {

struct Worker {
  unsigned seed;
  unsigned long checksum = 0, allocs = 0, bytes = 0, frees = 0, bad_contents = 0;
};

E2E_QUIET unsigned next_random(unsigned* s) { return *s = *s * 1103515245u + 12345u; }

// A block's first byte holds its fill byte, the rest repeats it: checked before freeing.
E2E_QUIET void fill(unsigned char* p, size_t n, unsigned char v) { memset(p, v, n); }
E2E_QUIET bool intact(const unsigned char* p, size_t n) {
  for (size_t i = 1; i < n; ++i)
    if (p[i] != p[0]) return false;
  return true;
}

}  // namespace

// Checks a block about to be replaced; returns whether there was one.
E2E_QUIET bool retire(Worker* w, const unsigned char* p, size_t n) {
  if (!p) return false;
  w->bad_contents += !intact(p, n);
  w->checksum += p[0] * n;
  return true;
}

// Half of the slots hold new[] blocks, the other half malloc/calloc/realloc blocks.
extern "C" E2E_FN void* worker(void* arg) {
  Worker* w = static_cast<Worker*>(arg);
  constexpr int kHalf = kSlots / 2;
  unsigned char* cpp[kHalf] = {};
  unsigned char* c[kHalf] = {};
  size_t cpp_size[kHalf] = {}, c_size[kHalf] = {};
  for (int step = 0; step < kSteps; ++step) {
    const unsigned r = next_random(&w->seed) >> 8;
    const int k = int(r % kHalf);
    const size_t n = 1 + (r >> 6) % 2000;
    if (r & (1u << 20)) {
      w->frees += retire(w, cpp[k], cpp_size[k]);
      delete[] cpp[k];
      cpp[k] = new unsigned char[n];
      fill(cpp[k], cpp_size[k] = n, static_cast<unsigned char>(r));
    } else if (c[k] && r % 3 == 0) {  // grow or shrink, in place or moved
      retire(w, c[k], c_size[k]);
      unsigned char* q = static_cast<unsigned char*>(realloc(c[k], n));
      w->frees += q != c[k];
      c[k] = q;
      fill(c[k], c_size[k] = n, static_cast<unsigned char>(r));
    } else {
      w->frees += retire(w, c[k], c_size[k]);
      free(c[k]);
      c[k] = static_cast<unsigned char*>(calloc(1, n));
      fill(c[k], c_size[k] = n, static_cast<unsigned char>(r));
    }
    w->allocs += 1;
    w->bytes += n;
  }
  for (int k = 0; k < kHalf; ++k) {
    w->frees += (cpp[k] != nullptr) + (c[k] != nullptr);
    delete[] cpp[k];
    free(c[k]);
  }
  return nullptr;
}

namespace {

int g_handler_calls;
void* volatile g_sink;  // results escape: the optimizer may not elide the allocations
void handler() {
  if (++g_handler_calls == 3) std::set_new_handler(nullptr);
}

void failing_allocations() {
  volatile size_t huge = size_t(1) << 62;
  try {
    g_sink = new char[huge];
    puts("new of 2^62 bytes succeeded?!");
  } catch (const std::bad_alloc&) {
    puts("bad_alloc caught");
  }
  std::set_new_handler(handler);
  try {
    g_sink = new char[huge];
  } catch (const std::bad_alloc&) {
    printf("bad_alloc after %d new_handler calls\n", g_handler_calls);
  }
  g_sink = new (std::nothrow) char[huge];
  printf("nothrow new: %s\n", g_sink ? "non-null" : "null");
  volatile int* error = &errno;  // Clang assumes malloc leaves errno alone
  *error = 0;
  g_sink = malloc(huge);
  printf("malloc: %s, ENOMEM %d\n", g_sink ? "non-null" : "null", *error == ENOMEM);
  void* q = malloc(16);
  void* r = realloc(q, huge);
  printf("failed realloc keeps the block: %d\n", r == nullptr);
  free(r ? r : q);
}

}  // namespace

int main() {
  printf("before main: %zu words, sum %u\n", g_early.words.size(), g_constructor_sum);
  Worker workers[kThreads];
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    workers[i].seed = 17u + unsigned(i);
    pthread_create(&threads[i], nullptr, worker, &workers[i]);
  }
  unsigned long allocs = 0, bytes = 0, frees = 0;
  for (int i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], nullptr);
    printf("thread %d: checksum %lu, bad contents %lu\n", i, workers[i].checksum, workers[i].bad_contents);
    allocs += workers[i].allocs;
    bytes += workers[i].bytes;
    frees += workers[i].frees;
  }
  failing_allocations();
  printf("truth worker_allocs=%lu worker_bytes=%lu worker_frees=%lu\n", allocs, bytes, frees);
  fflush(stdout);
  return 3;
}

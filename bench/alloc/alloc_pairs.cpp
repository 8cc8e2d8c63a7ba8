// Allocation-metrics benchmark program: N malloc/free pairs and N new/delete pairs of
// 64 bytes in one instrumented function each, timed by the program itself (so start-up
// and the recorder's post-processing do not count). `alloc_pairs [N]`, default 10^7.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// Helpers carry no hooks (GCC would instrument them even inlined): only the two loop
// functions are calls the profiler sees, so the loops time allocation alone.
#define QUIET __attribute__((always_inline, no_instrument_function)) inline

namespace {

QUIET double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

// The optimizer must not pair up and elide an allocation with its free.
QUIET void escape(void* p) { asm volatile("" : : "r"(p) : "memory"); }

}  // namespace

__attribute__((noinline)) double malloc_free_pairs(long n) {
  const double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
    void* p = malloc(64);
    escape(p);
    free(p);
  }
  return (now_ns() - t0) / double(n);
}

__attribute__((noinline)) double new_delete_pairs(long n) {
  const double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
    char* p = new char[64];
    escape(p);
    delete[] p;
  }
  return (now_ns() - t0) / double(n);
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 10000000;
  if (n <= 0) return 2;
  malloc_free_pairs(n / 10);  // warm-up: tcache, page faults, CPU frequency
  const double mf = malloc_free_pairs(n);
  const double nd = new_delete_pairs(n);
  printf("pairs=%ld malloc_free_ns=%.3f new_delete_ns=%.3f\n", n, mf, nd);
  return 0;
}

/* A C program that brings its own allocator: malloc, free, calloc, realloc and the aligned
 * variants are defined here (a bump allocator over a static arena; free only counts), and
 * count every call, whoever makes it (the program, libc, the dynamic linker). main calls
 * make_list(), which mallocs 10 blocks and frees them, and spawn(), which starts one
 * thread running worker() (calloc 1 block, free it) and joins it. Then main prints the
 * counts with write().
 * Truth: the counts are the same as without callprof; in the profile make_list calls
 * malloc 10 times and free 10 times, worker calls calloc once and free once, and no
 * allocator function sits at the root of any thread's tree. Exit status 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

static _Alignas(64) char arena[8 << 20];
static size_t used;
static unsigned long mallocs, frees, callocs, reallocs, aligned;

/* A block is preceded by its size, for realloc. */
E2E_QUIET void* bump(size_t bytes, size_t align) {
  size_t at = __atomic_load_n(&used, __ATOMIC_RELAXED), start;
  do {
    start = (at + 16 + align - 1) & ~(align - 1);
    if (start + bytes > sizeof arena) return NULL;
  } while (!__atomic_compare_exchange_n(&used, &at, start + bytes, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  memcpy(arena + start - sizeof bytes, &bytes, sizeof bytes);
  return arena + start;
}

E2E_FN void* malloc(size_t n) {
  __atomic_add_fetch(&mallocs, 1, __ATOMIC_RELAXED);
  return bump(n ? n : 1, 16);
}

E2E_FN void free(void* p) {
  if (p) __atomic_add_fetch(&frees, 1, __ATOMIC_RELAXED);
}

E2E_FN void* calloc(size_t count, size_t size) {
  __atomic_add_fetch(&callocs, 1, __ATOMIC_RELAXED);
  const size_t bytes = count * size;
  return bump(bytes ? bytes : 1, 16); /* the arena is zero and never reused */
}

E2E_FN void* realloc(void* p, size_t n) {
  __atomic_add_fetch(&reallocs, 1, __ATOMIC_RELAXED);
  void* q = bump(n ? n : 1, 16);
  if (p && q) {
    size_t old;
    memcpy(&old, (char*)p - sizeof old, sizeof old);
    memcpy(q, p, old < n ? old : n);
  }
  return q;
}

E2E_FN void* memalign(size_t align, size_t n) {
  __atomic_add_fetch(&aligned, 1, __ATOMIC_RELAXED);
  return bump(n ? n : 1, align < 16 ? 16 : align);
}
E2E_FN void* aligned_alloc(size_t align, size_t n) { return memalign(align, n); }
E2E_FN int posix_memalign(void** out, size_t align, size_t n) {
  *out = memalign(align, n);
  return *out ? 0 : 12;
}

E2E_FN void make_list(void) {
  void* blocks[10];
  for (int i = 0; i < 10; ++i) blocks[i] = malloc(32 + i);
  asm volatile("" : : "r"(blocks) : "memory");
  for (int i = 0; i < 10; ++i) free(blocks[i]);
}

E2E_FN void* worker(void* arg) {
  void* p = calloc(4, 8);
  asm volatile("" : : "r"(p) : "memory");
  free(p);
  return arg;
}

E2E_FN void spawn(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
}

int main(void) {
  make_list();
  spawn();
  char line[160];
  int n = snprintf(line, sizeof line, "malloc %lu free %lu calloc %lu realloc %lu aligned %lu\n",
                   __atomic_load_n(&mallocs, __ATOMIC_RELAXED), __atomic_load_n(&frees, __ATOMIC_RELAXED),
                   __atomic_load_n(&callocs, __ATOMIC_RELAXED), __atomic_load_n(&reallocs, __ATOMIC_RELAXED),
                   __atomic_load_n(&aligned, __ATOMIC_RELAXED));
  ssize_t w = write(1, line, (size_t)n);
  (void)w;
  return 0;
}

/* A C program that brings its own versions of libc functions: malloc, free, calloc,
 * realloc and the aligned variants (a bump allocator over a static arena; free only
 * counts), memcpy and strlen. Each counts every call, whoever makes it (the program, libc,
 * the dynamic linker). main calls make_list(), which mallocs 10 blocks and frees them;
 * spawn(), which starts one thread running worker() (calloc 1 block, free it) and joins
 * it; and copy_text(), which calls strlen and memcpy 5 times each while sleeping in
 * between (context switches: the runtime has off-CPU records to read). Then main prints
 * the counts with write().
 * Truth: the counts are the same as without callprof; in the profile make_list calls
 * malloc 10 times and free 10 times, worker calls calloc once and free once, copy_text
 * calls memcpy and strlen 5 times each, and no allocator function sits at the root of any
 * thread's tree. Exit status 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

static _Alignas(64) char arena[8 << 20];
static size_t used;
static unsigned long mallocs, frees, callocs, reallocs, aligned, memcpys, strlens;

/* Byte by byte through volatile pointers: no compiler turns this back into a memcpy call. */
E2E_FN void* memcpy(void* to, const void* from, size_t n) {
  __atomic_add_fetch(&memcpys, 1, __ATOMIC_RELAXED);
  volatile char* d = to;
  const volatile char* s = from;
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
  return to;
}

E2E_FN size_t strlen(const char* s) {
  __atomic_add_fetch(&strlens, 1, __ATOMIC_RELAXED);
  const volatile char* p = s;
  size_t n = 0;
  while (p[n]) ++n;
  return n;
}

/* The allocator's own copies: not through memcpy, whose calls are counted. */
E2E_QUIET void copy_bytes(void* to, const void* from, size_t n) {
  volatile char* d = to;
  const volatile char* s = from;
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
}

/* A block is preceded by its size, for realloc. */
E2E_QUIET void* bump(size_t bytes, size_t align) {
  size_t at = __atomic_load_n(&used, __ATOMIC_RELAXED), start;
  do {
    start = (at + 16 + align - 1) & ~(align - 1);
    if (start + bytes > sizeof arena) return NULL;
  } while (!__atomic_compare_exchange_n(&used, &at, start + bytes, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  copy_bytes(arena + start - sizeof bytes, &bytes, sizeof bytes);
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
    copy_bytes(&old, (char*)p - sizeof old, sizeof old);
    copy_bytes(q, p, old < n ? old : n);
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

E2E_FN void copy_text(void) {
  static char words[5][8] = {"one", "two", "three", "four", "five"}; /* not constants: no folding */
  void* (*volatile copy)(void*, const void*, size_t) = memcpy;       /* a real call, never inlined */
  char buffer[16];
  for (int i = 0; i < 5; ++i) {
    copy(buffer, words[i], strlen(words[i]) + 1);
    asm volatile("" : : "r"(buffer) : "memory");
    e2e_work_us(2000); /* asleep most of the time: switches for the off-CPU ring */
  }
}

int main(void) {
  make_list();
  spawn();
  copy_text();
  char line[200];
  int n = snprintf(line, sizeof line, "malloc %lu free %lu calloc %lu realloc %lu aligned %lu memcpy %lu strlen %lu\n",
                   __atomic_load_n(&mallocs, __ATOMIC_RELAXED), __atomic_load_n(&frees, __ATOMIC_RELAXED),
                   __atomic_load_n(&callocs, __ATOMIC_RELAXED), __atomic_load_n(&reallocs, __ATOMIC_RELAXED),
                   __atomic_load_n(&aligned, __ATOMIC_RELAXED), __atomic_load_n(&memcpys, __ATOMIC_RELAXED),
                   __atomic_load_n(&strlens, __ATOMIC_RELAXED));
  ssize_t w = write(1, line, (size_t)n);
  (void)w;
  return 0;
}

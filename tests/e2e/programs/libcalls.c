/* Library calls by construction (run with CALLPROF_LIBCALLS=1, built with -fno-builtin so
 * every call below stays a call through the PLT):
 *   main -> copy_some x3        -> memcpy x100 each
 *   main -> measure x2          -> strlen x50 each
 *   main -> emit x1             -> write x5 (fflush first, so output order is fixed)
 *   main -> print_many x4       -> printf x1 each: 10 integers and 10 doubles (stack args)
 *   main -> sort_items x1       -> qsort x1 -> compare_ints (count printed as "compares=")
 *   main -> call_wide x1        -> wide10 x3 (libcalls_wide.c: 10 integer arguments, in an
 *                                  uninstrumented library of ours)
 * Every result is printed, so a wrong argument or return value changes the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

long wide10(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j);

static char src[256], dst[256];
static int compares;

E2E_FN unsigned copy_some(int n) {
  unsigned sum = 0;
  for (int i = 0; i < 100; ++i) {
    memcpy(dst, src + (i + n) % 64, (size_t)(64 + i));
    sum += (unsigned char)dst[i % 64];
  }
  return sum;
}

E2E_FN size_t measure(const char* s) {
  size_t total = 0;
  for (int i = 0; i < 50; ++i) total += strlen(s + i % 4);
  return total;
}

E2E_FN void emit(void) {
  fflush(stdout);
  for (int i = 0; i < 5; ++i) {
    char line[32];
    int n = snprintf(line, sizeof line, "write %d\n", i);
    if (write(1, line, (size_t)n) != n) exit(3);
  }
}

E2E_FN void print_many(int k) {
  printf("ints %d %d %d %d %d %d %d %d %d %d doubles %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f\n", k, k + 1,
         k + 2, k + 3, k + 4, k + 5, k + 6, k + 7, k + 8, k + 9, k * 0.5, k * 1.5, k * 2.5, k * 3.5, k * 4.5, k * 5.5,
         k * 6.5, k * 7.5, k * 8.5, k * 9.5);
}

E2E_FN int compare_ints(const void* a, const void* b) {
  ++compares;
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

E2E_FN void sort_items(void) {
  int items[40];
  for (int i = 0; i < 40; ++i) items[i] = (i * 37) % 41;
  qsort(items, 40, sizeof items[0], compare_ints);
  for (int i = 0; i < 40; ++i) printf("%d%c", items[i], i == 39 ? '\n' : ' ');
}

E2E_FN long call_wide(void) {
  long s = 0;
  for (long k = 1; k <= 3; ++k) s += wide10(k, 2 * k, 3, 4, 5, 6, 7 * k, 8, 9, 10 * k);
  return s;
}

int main(void) {
  for (int i = 0; i < 256; ++i) src[i] = (char)('a' + i % 26);
  unsigned copied = 0;
  for (int n = 0; n < 3; ++n) copied += copy_some(n);
  size_t measured = measure("library calls") + measure("are their own nodes");
  printf("copied %u measured %zu\n", copied, measured);
  emit();
  for (int k = 0; k < 4; ++k) print_many(k);
  sort_items();
  printf("compares=%d\n", compares);
  printf("wide %ld\n", call_wide());
  return 0;
}

/* 500 000 distinct call paths, by construction: walk() descends six levels through ten
 * functions g0..g9, choosing each level's function by one decimal digit of `code`, for
 * code = 0 .. 499 999, and calls leaf() at the bottom. Every code is its own path
 * main -> g(d0) -> g(d1) -> ... -> g(d5) -> leaf, so the tree has over 1.1 million nodes.
 * Truth: main 1 call; leaf 500 000 calls; each of g0..g9 50 000 calls as the first level
 * (the codes whose last digit is its number); heavy() is called 20 times from main and lasts 5 ms each
 * (100 ms in all), so it stands out. Prints its peak memory ("VmHWM kB=..."). */
#include <stdio.h>
#include <string.h>

#include "truth.h"

/* Built with -DE2E_PLAIN, the functions get no hooks: the uninstrumented baseline. */
#ifdef E2E_PLAIN
#define FN E2E_FN __attribute__((no_instrument_function))
#else
#define FN E2E_FN
#endif

static volatile unsigned sink;
typedef void (*level_fn)(int, unsigned);
static level_fn table[10];

FN void leaf(void) { sink++; }

/* One function per expansion: */
/* clang-format off */
#define LEVEL(k)                                   \
  FN void g##k(int level, unsigned code) {     \
    if (level == 0) return leaf();                 \
    table[code % 10](level - 1, code / 10);        \
  }
LEVEL(0) LEVEL(1) LEVEL(2) LEVEL(3) LEVEL(4) LEVEL(5) LEVEL(6) LEVEL(7) LEVEL(8) LEVEL(9)

FN void heavy(void) { e2e_work_us(5000); }
/* clang-format on */

E2E_QUIET long peak_kb(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) sscanf(line + 6, "%ld", &kb);
  if (f) fclose(f);
  return kb;
}

int main(void) {
  level_fn fns[10] = {g0, g1, g2, g3, g4, g5, g6, g7, g8, g9};
  memcpy(table, fns, sizeof fns);
  for (unsigned code = 0; code < 500000; ++code) {
    table[code % 10](5, code / 10);
    if (code % 25000 == 0) heavy();
  }
  printf("VmHWM kB=%ld\n", peak_kb());
  return 0;
}

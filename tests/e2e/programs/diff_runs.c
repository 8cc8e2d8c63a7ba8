/* A function made slower by an argument, for `callprof diff` (issue 29.6). Every function
 * spins a fixed number of iterations: CPU work, so its CPU time follows the work whatever a
 * loaded machine does to its wall time. argv[1] (FACTOR, default 1) multiplies target's
 * work; argv[2] (STRETCH, default 1) everyone's (a run of twice the work: the total 2x).
 * By construction, per run: main calls parse, render, compress and target 40 times each;
 * work per call parse 800,000 iterations, render 600,000, compress 400,000, target 20,000
 * (about 1 % of the run) times FACTOR, all times STRETCH.
 * Truth: a diff of `1` against `12` (on a busy machine or not) or `12 2` ranks target first,
 * with ~12x the CPU time relative to the others; parse, render and compress unchanged
 * relative to each other. Exit status 0. */
#include <stdlib.h>

#include "truth.h"

static volatile unsigned sink;

E2E_QUIET void spin(unsigned long n) {
  unsigned x = 1;
  for (unsigned long i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    __asm__ volatile("" : "+r"(x));  // one multiply per iteration with both compilers: no unrolled shortcut
  }
  sink = x;
}

E2E_FN void parse(unsigned long stretch) { spin(800000ul * stretch); }
E2E_FN void render(unsigned long stretch) { spin(600000ul * stretch); }
E2E_FN void compress(unsigned long stretch) { spin(400000ul * stretch); }
E2E_FN void target(unsigned long stretch, unsigned long factor) { spin(20000ul * stretch * factor); }

int main(int argc, char** argv) {
  const unsigned long factor = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
  const unsigned long stretch = argc > 2 ? strtoul(argv[2], NULL, 10) : 1;
  for (int i = 0; i < 40; ++i) {
    parse(stretch);
    render(stretch);
    compress(stretch);
    target(stretch, factor);
  }
  return 0;
}

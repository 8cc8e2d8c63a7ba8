// Two overloads of one name, one made slower by an argument, for `callprof diff` (issue
// 29.6): report tells them apart by their parameters, so must diff.
// By construction: main calls work(int) and work(double) 20 times each; work(int) spins
// 1,000,000 iterations, work(double) 100,000 times argv[1] (FACTOR, default 1); main spins
// 30,000,000 itself.
// Truth: a diff of `1` against `12` ranks work(double) first (~12x), work(int) unchanged,
// each under its own name. Exit status 0.
#include <cstdlib>

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

E2E_FN void work(int) { spin(1000000ul); }
E2E_FN void work(double factor) { spin((unsigned long)(100000 * factor)); }

int main(int argc, char** argv) {
  const double factor = argc > 1 ? std::atof(argv[1]) : 1;
  // main's own time, the same in both runs: with only three functions, main's few hundred
  // microseconds of start-up jitter (187 us against 18 us seen under a loaded ctest) made the
  // unchanged functions' spread so wide that work(double)'s 12x was within it. Ten times
  // 3,000,000: a hiccup of some 3.7 ms (7.3 ms against 3.5 once in 6 runs on an idle VM, and
  // in CI) doubled main's time and made it "changed".
  spin(30000000ul);
  for (int i = 0; i < 20; ++i) {
    work(1);
    work(factor);
  }
  return 0;
}

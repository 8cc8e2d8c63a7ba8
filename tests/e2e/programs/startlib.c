/* A program and an instrumented library it is linked with (startlib_lib.c): main calls
 * work() 1000 times; work calls the library's lib_tiny 1000 times (a few ns: folded by
 * --auto-fold all, its hook calls then rewritten), lib_medium once (about 2 us: never
 * folded) and lib_skipped 5 times (for --exclude). Truth: work 1000, lib_tiny 1,000,000,
 * lib_medium 1000, lib_skipped 5000, each only under work. Exit status 0. */
#include "truth.h"

unsigned lib_tiny(unsigned x);
void lib_skipped(void);
void lib_medium(void);

static volatile unsigned sink;

E2E_FN void work(void) {
  for (unsigned i = 0; i < 1000; ++i) sink += lib_tiny(i);
  lib_medium();
  for (int i = 0; i < 5; ++i) lib_skipped();
}

int main(void) {
  for (int i = 0; i < 1000; ++i) work();
  return 0;
}

// An exception thrown through three instrumented frames, by construction. argv[1]:
//   "frames":  main -> catcher x10; catcher -> f1 -> f2 -> f3, which throws Boom.
//   "inlined": main -> catcher_inlined x10; the same, but f1_inlined is always inlined
//              into catcher_inlined (its hooks stay: it has a frame of its own in the
//              profile, at its host's stack pointer).
// The catcher catches, then works 2 ms in its own body and calls after_catch once.
// Truth: f1 (or f1_inlined), f2, f3, after_catch, and the catcher: 10 calls each; the
// catcher's self time >= 20 ms (the work after the catch is its own, whether the
// compiler runs exit hooks while unwinding (GCC) or not (Clang)); f1's total is tiny
// (nothing below it works); after_catch sits at main/<catcher>/after_catch, never below
// f1..f3. Prints "caught 10"; exit status 0.
#include <cstdio>
#include <cstring>

#include "truth.h"

struct Boom {
  int code;
};

static volatile int sink;

E2E_FN void f3(int i) {
  sink += i;
  throw Boom{i};
}
E2E_FN void f2(int i) {
  f3(i);
  sink += 1;  // after the call, so f2 -> f3 is no tail call
}
E2E_FN void f1(int i) {
  f2(i);
  sink += 1;
}
E2E_INLINED void f1_inlined(int i) {
  f2(i);
  sink += 1;
}
E2E_FN void after_catch() { sink += 1; }

E2E_FN int catcher(int i) {
  try {
    f1(i);
  } catch (const Boom&) {
    e2e_work_us(2000);
    after_catch();
    return 1;
  }
  return 0;
}

E2E_FN int catcher_inlined(int i) {
  try {
    f1_inlined(i);
  } catch (const Boom&) {
    e2e_work_us(2000);
    after_catch();
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  const bool inlined = argc > 1 && std::strcmp(argv[1], "inlined") == 0;
  int caught = 0;
  for (int i = 0; i < 10; ++i) caught += inlined ? catcher_inlined(i) : catcher(i);
  std::printf("caught %d\n", caught);
  return 0;
}

/* Exact call counts on several call paths, by construction:
 *   main -> a x3,  a -> b x7 on every call of a,  main -> b x2,  main -> c x4,  c -> a x1
 *   main -> via_pointer x1, via_pointer -> leaf x1000 (through a function pointer)
 *   main -> hot x1, hot -> leaf x100000 (many calls through one path: nothing dropped)
 * Totals: a 7 (3 from main, 4 from c); b 2 + 7*7 = 51; c 4; leaf 101000.
 * Tree paths: main/a 3, main/a/b 21, main/b 2, main/c 4, main/c/a 4, main/c/a/b 28,
 *   main/via_pointer/leaf 1000, main/hot/leaf 100000. Prints nothing; exit status 0. */
#include "truth.h"

static volatile int sink;

E2E_FN void leaf(void) { sink++; }
E2E_FN void b(void) { sink += 2; }
E2E_FN void a(void) {
  for (int i = 0; i < 7; ++i) b();
}
E2E_FN void c(void) { a(); }
E2E_FN void via_pointer(void (*volatile fn)(void)) {
  for (int i = 0; i < 1000; ++i) fn();
}
E2E_FN void hot(void) {
  for (int i = 0; i < 100000; ++i) leaf();
}

int main(void) {
  for (int i = 0; i < 3; ++i) a();
  b();
  b();
  for (int i = 0; i < 4; ++i) c();
  via_pointer(leaf);
  hot();
  return 0;
}

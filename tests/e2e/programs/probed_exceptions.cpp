// Exceptions through probed frames: main -> catcher x50 -> middle x1 -> thrower x1 ->
// scale x1; thrower throws on 40 of the 50 calls (i % 5 != 0) and catcher catches, so
// each exception skips the exits of thrower and middle: 80 frames left without a return.
// scale is a leaf (it calls nothing): probed, it returns through a uretprobe before the
// throw. Prints what it caught and exits with status 0.
#include <cstdio>
#include <stdexcept>

#include "truth.h"

static volatile int sink;

E2E_FN int scale(int i) {
  __asm__ volatile("" : "+r"(i));
  return i * 3;
}

E2E_FN int thrower(int i) {
  const int s = scale(i);
  if (i % 5 != 0) throw std::runtime_error("odd");
  sink = sink + s;
  return i;
}

E2E_FN int middle(int i) {
  int r = thrower(i);
  __asm__ volatile("" : "+r"(r));
  return r + 1;
}

E2E_FN int catcher(int i) {
  try {
    return middle(i);
  } catch (const std::runtime_error&) {
    return -1;
  }
}

int main() {
  int caught = 0, returned = 0;
  for (int i = 0; i < 50; ++i) (catcher(i) < 0 ? caught : returned)++;
  std::printf("caught %d returned %d\n", caught, returned);
  return 0;
}

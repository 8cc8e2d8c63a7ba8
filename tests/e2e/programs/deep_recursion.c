/* deep_recursion N: main -> dive(N) -> dive(N-1) -> ... -> dive(0), not tail calls. Truth:
 * dive has N + 1 calls, one per depth (a path N + 2 frames deep with main), main 1.
 * Exit status 0. */
#include <stdlib.h>

#include "truth.h"

static volatile int sink;

E2E_FN int dive(int n) {
  if (n == 0) return 0;
  int r = dive(n - 1); /* used after the return: not a tail call */
  sink += r;
  return r + 1;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 100000;
  return dive(n) == n ? 0 : 1;
}

// The hooks' cost beside a caller's own work (bench/runtime/overlap.sh): host() runs N
// iterations, each W rounds of a dependent multiply-xor chain (latency-bound: the CPU has
// ports to spare) and one call of a small leaf. Built with the hooks, without them, and
// without the leaf (-DNO_LEAF: the host's own work alone).
#include <stdint.h>
#include <stdlib.h>

volatile uint64_t sink;

__attribute__((noinline)) uint64_t leaf(uint64_t x) { return (x ^ (x >> 13)) * 0x9E3779B97F4A7C15ull; }

__attribute__((noinline)) uint64_t host(uint64_t n, int w) {
  uint64_t a = 1, b = 2, c = 3, d = 4;
  for (uint64_t i = 0; i < n; i++) {
    for (int k = 0; k < w; k++) {
      a = a * 6364136223846793005ull + b;
      b ^= a >> 7;
      c += a ^ d;
      d = (d << 3) ^ c;
    }
#ifndef NO_LEAF
    a += leaf(a ^ i);
#endif
  }
  return a + b + c + d;
}

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 10000000;
  const int w = argc > 2 ? atoi(argv[2]) : 0;
  sink = host(n, w);
  return 0;
}

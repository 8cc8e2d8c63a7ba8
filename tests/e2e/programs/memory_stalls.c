/* A callee whose time is waiting on memory: main -> caller x N -> load x1 each. load()
 * reads four words at pseudo-random places of a 512 MiB array (cache misses) and returns
 * their sum; caller() only passes the result on. Almost all the time of the loop is
 * load()'s, but at load's return its loads are still in flight: a clock read that does
 * not wait for them (plain rdtsc) charges their wait to caller(). Prints the sum. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "truth.h"

#define WORDS (64u << 20) /* 512 MiB of uint64_t */

static uint64_t* words;

E2E_QUIET uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

E2E_FN uint64_t load(uint64_t i) {
  const uint64_t h = mix(i);
  return words[h & (WORDS - 1)] + words[(h >> 16) & (WORDS - 1)] + words[(h >> 24) & (WORDS - 1)] +
         words[(h >> 32) & (WORDS - 1)];
}

E2E_FN uint64_t caller(uint64_t i) { return load(i); }

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  words = mmap(NULL, WORDS * sizeof *words, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (words == MAP_FAILED) return 1;
  madvise(words, WORDS * sizeof *words, MADV_HUGEPAGE);   /* a few hundred faults, not 131072 */
  for (uint64_t i = 0; i < WORDS; i += 512) words[i] = i; /* touch every page */
  uint64_t sum = 0;
  for (long i = 0; i < n; ++i) sum += caller((uint64_t)i);
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}

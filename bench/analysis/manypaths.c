// manypaths: a program with very many distinct call paths, for the analysis benchmark's
// comparison with uftrace (bench/analysis/run.sh, bench/README.md).
//
//   manypaths [DEPTH] [ROUNDS] [THREADS]     (defaults 13 2 2)
//
// 300 functions f_000 ... f_299, all alike: each takes (depth, x), and unless depth is 0
// calls 1 to 4 of the others through a table, chosen by a hash of x, with new x values. So
// nearly every call starts a new path: about 2.5^DEPTH calls per traversal, almost all of
// them on distinct paths. Each of THREADS threads (the main thread first, the others
// started with pthread_create, each from a different seed) walks its tree ROUNDS times
// with the same seeds: the calls grow with ROUNDS, the distinct paths do not. Built with
// -finstrument-functions, the same binary is recorded by callprof and by uftrace. It
// prints the calls it made (`calls=`, the f_ calls, main and the thread routines) and a
// checksum.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NF 300
typedef unsigned (*fn_t)(unsigned depth, unsigned x);
static fn_t table[NF];
static struct {
  unsigned long long n;
  char pad[56];
} calls_made[64];  // per thread, one cache line each

static inline __attribute__((always_inline, no_instrument_function)) unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  return x ^ (x >> 16);
}

static __thread unsigned slot;

// The body every f_NNN shares (inlined into each, without hooks of its own).
static inline __attribute__((always_inline, no_instrument_function)) unsigned body(unsigned id, unsigned depth,
                                                                                   unsigned x) {
  ++calls_made[slot].n;
  unsigned h = mix(x ^ (id * 0x9e3779b9U));
  if (depth == 0) {
    for (unsigned i = 0; i < 8; ++i) h = mix(h + i);  // a little work in the leaves
    return h;
  }
  unsigned fan = 1 + (h >> 8) % 4, acc = h;
  for (unsigned k = 0; k < fan; ++k) {
    unsigned y = mix(h + k * 0x632be5abU);
    acc += table[(id * 7 + y) % NF](depth - 1, y);
  }
  return acc;
}

// One function per expansion, as generated code:
// clang-format off
#define F(n) \
  __attribute__((noinline)) unsigned f_##n(unsigned depth, unsigned x) { return body(1##n - 1000, depth, x); }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
F100(0) F100(1) F100(2)
#undef F
#define F(n) table[1##n - 1000] = f_##n;
static __attribute__((no_instrument_function)) void fill_table(void) { F100(0) F100(1) F100(2) }
// clang-format on

struct job {
  unsigned index, depth, rounds, result;
};

__attribute__((noinline)) unsigned walk(unsigned depth, unsigned seed) {
  unsigned acc = 0;
  for (unsigned i = 0; i < 4; ++i) acc += table[mix(seed + i) % NF](depth, mix(seed * 31 + i));
  return acc;
}

__attribute__((noinline)) void* worker(void* arg) {
  struct job* j = arg;
  slot = j->index;
  for (unsigned r = 0; r < j->rounds; ++r) j->result += walk(j->depth, 1000003U * (j->index + 1));
  return NULL;
}

int main(int argc, char** argv) {
  const unsigned depth = argc > 1 ? (unsigned)atoi(argv[1]) : 13;
  const unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
  unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 2;
  if (threads < 1) threads = 1;
  if (threads > 64) threads = 64;
  fill_table();
  struct job jobs[64];
  pthread_t ids[64];
  for (unsigned t = 0; t < threads; ++t) jobs[t] = (struct job){t, depth, rounds, 0};
  for (unsigned t = 1; t < threads; ++t)
    if (pthread_create(&ids[t], NULL, worker, &jobs[t]) != 0) return 1;
  worker(&jobs[0]);
  unsigned sum = jobs[0].result;
  for (unsigned t = 1; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    sum += jobs[t].result;
  }
  // main, worker (once per thread) and walk (once per round and thread) are calls too.
  unsigned long long calls = 1 + threads + (unsigned long long)threads * rounds;
  for (unsigned t = 0; t < threads; ++t) calls += calls_made[t].n;
  printf("calls=%llu checksum=%08x\n", calls, sum);
  return 0;
}

/* The hit-kinds benchmark's program: hit_kinds FUNCTION N calls FUNCTION (one of
 * hit_kinds.S) N times through a function pointer and prints calls=N and elapsed_ns, the
 * loop's own time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long f_lea(long), f_nop(long), f_push(long), f_endbr(long), f_nopl(long), f_nop5(long), f_jmp(long), f_movrr(long);
static const struct {
  const char* name;
  long (*fn)(long);
} functions[] = {{"f_lea", f_lea},   {"f_nop", f_nop},   {"f_push", f_push}, {"f_endbr", f_endbr},
                 {"f_nopl", f_nopl}, {"f_nop5", f_nop5}, {"f_jmp", f_jmp},   {"f_movrr", f_movrr}};

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char** argv) {
  long (*volatile fn)(long) = 0;
  for (unsigned i = 0; argc > 2 && i < sizeof functions / sizeof *functions; ++i)
    if (strcmp(functions[i].name, argv[1]) == 0) fn = functions[i].fn;
  if (!fn) {
    fprintf(stderr, "usage: hit_kinds FUNCTION N\n");
    return 2;
  }
  const long n = atol(argv[2]);
  long sum = 0;
  const long long start = now_ns();
  for (long i = 0; i < n; ++i) sum += fn(i);
  printf("calls=%ld sum=%ld elapsed_ns=%lld\n", n, sum, now_ns() - start);
  return 0;
}

/* Library-call benchmark program: `strlen_loop N [own]` calls strlen on a short string N
 * times from one instrumented function; with "own" it calls own_strlen instead, an
 * instrumented function doing the same work (the reference: a call the compiler hooks).
 * Built with -fno-builtin so each strlen call goes through the PLT.
 * Prints "calls=N checksum=...". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* volatile text = "short string";

__attribute__((noinline)) size_t own_strlen(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

__attribute__((noinline)) size_t loop(long n, size_t (*len)(const char*)) {
  size_t total = 0;
  if (len == own_strlen)
    for (long i = 0; i < n; ++i) total += own_strlen(text + (i & 3));
  else
    for (long i = 0; i < n; ++i) total += strlen(text + (i & 3));
  return total;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000000;
  int own = argc > 2 && strcmp(argv[2], "own") == 0;
  printf("calls=%ld checksum=%zu\n", n, loop(n, own ? own_strlen : NULL));
  return 0;
}

/* Hook removal (issue 28): functions folded or filtered out while threads run through them.
 * main and 4 threads each call work() 200 times; work calls tiny() 1000 times (a few ns:
 * folded by --auto-fold all, its hook calls then rewritten into nops), medium() 10 times
 * (about 2 us: never folded) and skipped() 5 times (for --exclude skipped).
 * Truth: work 1000, medium 10000, tiny 1000000, skipped 5000; medium's callers: work only.
 * With the argument "mdwe" the program first forbids itself writable executable memory
 * (prctl PR_SET_MDWE, Linux 6.3) and prints whether that worked. Exit status 0. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "truth.h"

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

static volatile unsigned sink;

E2E_FN unsigned tiny(unsigned x) { return x * 2654435761u; }
E2E_FN void medium(void) {
  const uint64_t end = e2e_now_ns() + 2000;
  while (e2e_now_ns() < end) sink++;
}
E2E_FN void skipped(void) { sink++; }
E2E_FN void work(void) {
  for (unsigned i = 0; i < 1000; ++i) {
    sink += tiny(i);
    if (i % 100 == 0) medium();
    if (i % 200 == 0) skipped();
  }
}

static void* thread_main(void* arg) {
  (void)arg;
  for (int i = 0; i < 200; ++i) work();
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "mdwe") == 0)
    printf("mdwe=%s\n", prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) == 0 ? "on" : "unsupported");
  pthread_t threads[4];
  for (int t = 0; t < 4; ++t) pthread_create(&threads[t], NULL, thread_main, NULL);
  thread_main(NULL);
  for (int t = 0; t < 4; ++t) pthread_join(threads[t], NULL);
  return 0;
}

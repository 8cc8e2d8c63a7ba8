/* exec: the process image before the exec and the one after it both count, by
 * construction. First image: main -> before_exec x3, then execv of this same program with
 * the argument "after". Second image: main -> after_exec x4, exit status 0.
 * Truth: before_exec 3 calls (SPEC 1.1: every call is counted; the first image's calls
 * happened even though that image never reaches exit), after_exec 4, main 2 (once per
 * image). Output: nothing. */
#include <string.h>
#include <unistd.h>

#include "truth.h"

static volatile int sink;

E2E_FN void before_exec(void) { sink++; }
E2E_FN void after_exec(void) { sink++; }

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "after") == 0) {
    for (int i = 0; i < 4; ++i) after_exec();
    return 0;
  }
  for (int i = 0; i < 3; ++i) before_exec();
  char* again[] = {argv[0], "after", NULL};
  execv("/proc/self/exe", again);
  return 1;
}

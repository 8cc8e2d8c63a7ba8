/* orphans [daemon]: main calls before() once, then leaves a process running after it ends:
 * a plain fork whose parent returns at once, or (with "daemon") daemon(1, 1), whose parent
 * glibc ends with an internal _exit. The process left behind sleeps 300 ms, calls
 * in_background() 5 times and returns. Truth: 2 processes; main 1 call (in the parent; the
 * child inherits its frame), before 1, in_background 5. Exit status 0. */
#include <string.h>
#include <unistd.h>

#include "truth.h"

E2E_FN void before(void) { __asm__ volatile(""); }
E2E_FN void in_background(void) { __asm__ volatile(""); }

int main(int argc, char** argv) {
  before();
  if (argc > 1 && strcmp(argv[1], "daemon") == 0) {
    if (daemon(1, 1) != 0) return 2;
  } else if (fork() != 0) {
    return 0;
  }
  usleep(300000);
  for (int i = 0; i < 5; ++i) in_background();
  return 0;
}

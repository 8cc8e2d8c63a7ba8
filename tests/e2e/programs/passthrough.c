/* The program's streams, exit status and death signal, by construction:
 *   stdout: "out: hello\n", one line "arg[i]=<argv[i]>" per argument, "stdin: <n> bytes\n"
 *           and the bytes read from stdin, verbatim
 *   stderr: "err: warning 1\n" and "err: warning 2\n"
 *   then main -> greet x3 and main -> leave, which ends the process from a nested frame:
 *   exit(3), or, when the first argument is "kill", death by SIGUSR1 (default action:
 *   terminate, no core dump).
 * Under `callprof record -q` all of this must be unchanged; after exit(3) the profile has
 * greet 3, leave 1 and main 1 (frames still open at exit are counted). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "truth.h"

static volatile int sink;

E2E_FN void greet(void) { sink++; }

E2E_FN void leave(int kill_self) {
  fflush(stdout);
  if (kill_self) {
    signal(SIGUSR1, SIG_DFL);
    raise(SIGUSR1);
  }
  exit(3);
}

int main(int argc, char** argv) {
  printf("out: hello\n");
  for (int i = 1; i < argc; ++i) printf("arg[%d]=%s\n", i, argv[i]);
  fflush(stdout);
  fputs("err: warning 1\n", stderr);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, stdin);
  printf("stdin: %zu bytes\n", n);
  fwrite(buf, 1, n, stdout);
  fputs("err: warning 2\n", stderr);
  for (int i = 0; i < 3; ++i) greet();
  leave(argc > 1 && strcmp(argv[1], "kill") == 0);
  return 0;
}

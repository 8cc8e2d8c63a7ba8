/* Getting data out of a program that never exits normally. `snapshots MODE`:
 *   step() runs 5 times (20 ms each); then, by MODE:
 *   "kill"      the program kills itself with SIGKILL after 600 ms of idle_loop();
 *   "signal"    it sends itself SIGUSR2 (the snapshot signal in the test), waits 600 ms
 *               in idle_loop(), then SIGKILLs itself;
 *   "crash"     it dereferences a null pointer in crash() (SIGSEGV);
 *   "abort"     it calls abort() in crash();
 * Truth: step 5 calls, all complete before the end; idle_loop is running at the end. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

static volatile int* volatile nowhere;

E2E_FN void step(void) { e2e_work_us(20000); }
E2E_FN void idle_loop(void) { e2e_work_us(600000); }
E2E_FN void crash(int do_abort) {
  if (do_abort) abort();
  *nowhere = 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "kill";
  for (int i = 0; i < 5; ++i) step();
  if (strcmp(mode, "signal") == 0) raise(SIGUSR2);
  if (strcmp(mode, "crash") == 0 || strcmp(mode, "abort") == 0) crash(strcmp(mode, "abort") == 0);
  idle_loop();
  kill(getpid(), SIGKILL);
  return 0;
}

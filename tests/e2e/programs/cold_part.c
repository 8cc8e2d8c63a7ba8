/* work() spends its time in a loop that follows a call of a cold function: GCC moves that
 * loop to a part of its own, work.cold, which runs on work's frame after its entry hook
 * (Clang keeps it in work). Truth: main calls work once; every CPU sample of the loop is
 * work's own. Exit status 0. */
#include "truth.h"

static volatile int g_cold = 1;
static volatile unsigned long g_sink;

__attribute__((cold, noinline, no_instrument_function)) static void note_cold(void) { ++g_sink; }

E2E_FN void work(void) {
  if (g_cold) { /* always, but the cold call says never: this goes to the cold part */
    note_cold();
    for (unsigned long i = 0; i < 150000000UL; ++i) g_sink += i;
  }
}

int main(void) {
  work();
  return 0;
}

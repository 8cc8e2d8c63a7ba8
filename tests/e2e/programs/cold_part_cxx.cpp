// cold_part.c in C++: work's symbol is mangled, and its cold part's name demangles to
// "ns::work(int) [clone .cold]". Truth: as cold_part.c. Exit status 0.
#include "truth.h"

namespace ns {
static volatile int g_cold = 1;
static volatile unsigned long g_sink;

__attribute__((cold, noinline, no_instrument_function)) static void note_cold() { ++g_sink; }

E2E_FN void work(int) {
  if (g_cold) {  // always, but the cold call says never: this goes to the cold part
    note_cold();
    for (unsigned long i = 0; i < 150000000UL; ++i) g_sink += i;
  }
}
}  // namespace ns

int main() {
  ns::work(1);
  return 0;
}

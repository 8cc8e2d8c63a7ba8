/* One program, two builds: with -DSLOWER=2 the function `parse` does twice the work per
 * call (2 units of 4 ms instead of 1); everything else is the same. Truth: a diff of the
 * two profiles ranks `parse` (and the path main > load > parse) first, with a self
 * delta of ~160 ms (40 calls x 4 ms) and a ratio of ~2. Units of 1 ms were too short on a
 * loaded host: sleeps 0.2-0.3 ms late moved the other functions by up to 45 %, as much
 * noise as the change.
 * Exit status 0. */
#include "truth.h"

#ifndef SLOWER
#define SLOWER 1
#endif
#define UNIT_US 4000
#define CALLS 40

E2E_FN void parse(void) { e2e_work_us((uint64_t)SLOWER * UNIT_US); }
E2E_FN void check(void) { e2e_work_us(UNIT_US); }
E2E_FN void render(void) { e2e_work_us(UNIT_US / 2); }

E2E_FN void load(void) {
  for (int i = 0; i < CALLS; ++i) {
    parse();
    check();
  }
}

int main(void) {
  load();
  for (int i = 0; i < CALLS; ++i) render();
  return 0;
}

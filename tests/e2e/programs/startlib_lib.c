/* A library the program starts with (linked, not dlopened), built with the hooks: its
 * functions are in the function plan like the program's own, so filters name them and its
 * folded functions' hook calls are rewritten (startlib.c has the truth). */
#include "truth.h"

static volatile unsigned lib_sink;

E2E_FN unsigned lib_tiny(unsigned x) { return x * 2654435761u; }
E2E_FN void lib_skipped(void) { lib_sink++; }
E2E_FN void lib_medium(void) {
  const uint64_t end = e2e_now_ns() + 2000;
  while (e2e_now_ns() < end) lib_sink++;
}

/* indirect: calls through a function pointer are told from direct calls.
 * main -> direct_callee x3 (call rel32); main -> pointer_callee x4 through a volatile
 * function pointer (call *reg or call *mem).
 * Truth: direct_callee 3 calls, 0 indirect; pointer_callee 4 calls, 4 indirect. */
#include "truth.h"

static volatile int sink;

E2E_FN void direct_callee(void) { sink++; }
E2E_FN void pointer_callee(void) { sink++; }

void (*volatile through_pointer)(void) = pointer_callee;

int main(void) {
  for (int i = 0; i < 3; ++i) direct_callee();
  for (int i = 0; i < 4; ++i) through_pointer();
  return 0;
}

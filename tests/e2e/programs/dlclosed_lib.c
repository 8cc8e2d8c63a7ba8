/* The library of dlclosed.c: lib_work (instrumented) calls lib_inner once. */
#include "truth.h"

static volatile int sink;

E2E_FN void lib_inner(void) { sink++; }
E2E_FN void lib_work(void) { lib_inner(); }

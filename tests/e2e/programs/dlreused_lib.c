/* The libraries of dlreused.c, built twice from this file: with -DLIB=alpha it defines
 * alpha_work and alpha_inner, with -DLIB=beta beta_work and beta_inner, in the same layout,
 * so that the second library, loaded where the first was, has its functions at the same
 * addresses. LIB_work (instrumented) calls LIB_inner once. */
#include "truth.h"

#define JOIN2(a, b) a##b
#define JOIN(a, b) JOIN2(a, b)

static volatile int sink;

E2E_FN void JOIN(LIB, _inner)(void) { sink++; }
E2E_FN void JOIN(LIB, _work)(void) { JOIN(LIB, _inner)(); }

/* What dlreused.c looks up: the same name in both libraries. */
__attribute__((no_instrument_function)) void* entry(void) { return (void*)JOIN(LIB, _work); }

/* The calibration's workload, compiled with -finstrument-functions (VARIANT ending in
 * _hooked) and without (_plain), by GCC and, where the build has it, by Clang: the
 * difference per call is what the hooks cost a real instrumented call — the PLT call into
 * the runtime, the spills around it, the optimisations they prevent — not just the hooks'
 * own instructions. Three situations that measured differently (docs/design.md,
 * "Compensation"): a leaf called from a loop, a function that has a callee, and a tiny
 * doubly recursive function (whose plain build the compilers turn half into a loop). */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline, visibility("hidden")))
#else
#define NOINLINE __attribute__((noinline, noclone, visibility("hidden")))
#endif
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))
#define NAME2(a, b) a##b
#define NAME(a, b) NAME2(a, b)

NOINLINE unsigned long NAME(callprof_calib_leaf_, VARIANT)(unsigned long x) {
  OPAQUE(x);
  return x + 1;
}

NOINLINE unsigned long NAME(callprof_calib_excluded_, VARIANT)(unsigned long x) {
  OPAQUE(x);
  return x + 1;
}

NOINLINE unsigned long NAME(callprof_calib_caller_, VARIANT)(unsigned long x) {
  OPAQUE(x);
  return NAME(callprof_calib_leaf_, VARIANT)(x) * 3;
}

/* Written as programs write it: the compilers keep the first call and make the second a
 * loop when no hooks are in the way. */
NOINLINE unsigned long NAME(callprof_calib_recursive_, VARIANT)(unsigned long n) {
  return n < 2 ? n : NAME(callprof_calib_recursive_, VARIANT)(n - 1) + NAME(callprof_calib_recursive_, VARIANT)(n - 2);
}

/* kind 0: n leaf calls; 1: n excluded calls; 2: n caller calls (each calling the leaf);
 * 3: n calls of the recursive function from the top, of depth `depth`. */
NOINLINE unsigned long NAME(callprof_calib_loop_, VARIANT)(unsigned long n, int kind, unsigned long depth) {
  unsigned long s = 0;
  if (kind == 0)
    for (unsigned long i = 0; i < n; ++i) s += NAME(callprof_calib_leaf_, VARIANT)(i);
  else if (kind == 1)
    for (unsigned long i = 0; i < n; ++i) s += NAME(callprof_calib_excluded_, VARIANT)(i);
  else if (kind == 2)
    for (unsigned long i = 0; i < n; ++i) s += NAME(callprof_calib_caller_, VARIANT)(i);
  else
    for (unsigned long i = 0; i < n; ++i) {
      unsigned long d = depth;
      OPAQUE(d); /* one call per iteration: the function could be found pure */
      s += NAME(callprof_calib_recursive_, VARIANT)(d);
    }
  return s;
}

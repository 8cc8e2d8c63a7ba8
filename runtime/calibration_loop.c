/* The calibration's workload, compiled twice: with -finstrument-functions
 * (calibration_loop_hooked) and without (calibration_loop_plain), so the difference per
 * call is what the hooks cost a real instrumented call — the PLT call into the runtime,
 * the spills around it — not just the hooks' own instructions. */
#define NOINLINE __attribute__((noinline, noclone, visibility("hidden")))
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

NOINLINE unsigned long NAME(callprof_calib_loop_, VARIANT)(unsigned long n, int excluded) {
  unsigned long s = 0;
  if (excluded)
    for (unsigned long i = 0; i < n; ++i) s += NAME(callprof_calib_excluded_, VARIANT)(i);
  else
    for (unsigned long i = 0; i < n; ++i) s += NAME(callprof_calib_leaf_, VARIANT)(i);
  return s;
}

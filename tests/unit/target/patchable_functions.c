/* Two functions built with -fpatchable-function-entry=5 (tests/unit/target/CMakeLists.txt),
 * for patched_code_test.cpp: their entry nops are in this test's own
 * __patchable_function_entries. */
__attribute__((noinline, used)) int callprof_test_patchable_one(int x) { return x * 3 + 1; }
__attribute__((noinline, used)) int callprof_test_patchable_two(int x) { return callprof_test_patchable_one(x) - 1; }

/* A call GCC moves to the function's cold part (callprof_test_patchable_with_cold_part.cold),
 * its callee being cold: a thread spinning there has that part's address as a return
 * address. Clang makes no such part. */
volatile int callprof_test_cold_stop;
volatile unsigned long callprof_test_cold_spins;
__attribute__((cold, noinline, used)) void callprof_test_cold_spin(void) {
  while (!callprof_test_cold_stop) callprof_test_cold_spins = callprof_test_cold_spins + 1;
}
__attribute__((noinline, used)) int callprof_test_patchable_with_cold_part(int unlikely) {
  if (unlikely) callprof_test_cold_spin();
  return unlikely + 1;
}

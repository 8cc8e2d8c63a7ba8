/* Two functions built with -fpatchable-function-entry=5 (tests/unit/target/CMakeLists.txt),
 * for patched_code_test.cpp: their entry nops are in this test's own
 * __patchable_function_entries. */
__attribute__((noinline, used)) int callprof_test_patchable_one(int x) { return x * 3 + 1; }
__attribute__((noinline, used)) int callprof_test_patchable_two(int x) { return callprof_test_patchable_one(x) - 1; }

/* Instrumented code that runs before libc has set up the environment: a function in
 * .preinit_array (the dynamic loader calls it before any constructor, with `environ`
 * still unset) calls early() once; main calls work() 10 times. Truth: preinit 1, early 1
 * (under preinit, outside main), main 1, work 10. Prints "ok". */
#include <stdio.h>

#include "truth.h"

E2E_FN void early(void) { __asm__ volatile(""); }

static void preinit(int argc, char** argv, char** envp) {
  (void)argc, (void)argv, (void)envp;
  early();
}
__attribute__((section(".preinit_array"), used)) static void (*const run_preinit)(int, char**, char**) = preinit;

E2E_FN void work(void) { __asm__ volatile(""); }

int main(void) {
  for (int i = 0; i < 10; ++i) work();
  puts("ok");
  return 0;
}

/* Non-local jumps out of three instrumented frames, by construction. argv[1]:
 *   "longjmp":    jumper: setjmp, then l1 -> l2 -> l3, which calls longjmp
 *   "siglongjmp": the same with sigsetjmp / siglongjmp
 *   "signal":     l3 raises SIGUSR1; the instrumented handler on_signal calls siglongjmp
 *   "altstack":   as "signal", but the handler runs on an alternate signal stack
 *                 (sigaltstack), as stack-overflow handlers do
 *   "inlined":    as "longjmp", but l1_inlined is always inlined into jumper (its hooks
 *                 stay: a frame of its own in the profile, at jumper's stack pointer)
 * main -> jumper x10. After the jump lands, jumper works 2 ms in its own body and calls
 * after_jump once.
 * Truth: jumper, l1 (or l1_inlined), l2, l3, after_jump: 10 calls each (on_signal too in
 * the signal modes); jumper's self time >= 20 ms; l1's total tiny; after_jump sits at
 * main/jumper/after_jump, never below l1..l3 or the handler. Prints "jumped 10"; exit 0. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "truth.h"

enum Mode { LONGJMP, SIGLONGJMP, SIGNAL, ALTSTACK, INLINED };
static enum Mode mode;
static jmp_buf env;
static sigjmp_buf senv;
static volatile int sink;

E2E_FN void on_signal(int sig) {
  sink += sig;
  siglongjmp(senv, 1);
}

E2E_FN void l3(int i) {
  sink += i;
  if (mode == LONGJMP || mode == INLINED) longjmp(env, 1);
  if (mode == SIGLONGJMP) siglongjmp(senv, 1);
  raise(SIGUSR1);
  sink += 1;
}
E2E_FN void l2(int i) {
  l3(i);
  sink += 1;
}
E2E_FN void l1(int i) {
  l2(i);
  sink += 1;
}
E2E_INLINED void l1_inlined(int i) {
  l2(i);
  sink += 1;
}
E2E_FN void after_jump(void) { sink += 1; }

E2E_FN int jumper(int i) {
  /* setjmp only where C allows it: as the whole controlling expression of an if. */
  if (mode == LONGJMP || mode == INLINED) {
    if (setjmp(env)) goto landed;
  } else if (sigsetjmp(senv, 1)) {
    goto landed;
  }
  if (mode == INLINED)
    l1_inlined(i);
  else
    l1(i);
  return 0;
landed:
  e2e_work_us(2000);
  after_jump();
  return 1;
}

static char alternate_stack[1 << 16];

static void install_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  if (mode == ALTSTACK) {
    stack_t ss = {.ss_sp = alternate_stack, .ss_flags = 0, .ss_size = sizeof alternate_stack};
    sigaltstack(&ss, NULL);
    sa.sa_flags = SA_ONSTACK;
  }
  sigaction(SIGUSR1, &sa, NULL);
}

int main(int argc, char** argv) {
  static const char* names[] = {"longjmp", "siglongjmp", "signal", "altstack", "inlined"};
  for (int m = 0; argc > 1 && m < 5; ++m)
    if (strcmp(argv[1], names[m]) == 0) mode = (enum Mode)m;
  install_handler();
  int jumped = 0;
  for (int i = 0; i < 10; ++i) jumped += jumper(i);
  printf("jumped %d\n", jumped);
  return 0;
}

/* The probe benchmark's program: calls fn() N times (argv[1], default 200000) and prints
 * calls=N and elapsed_ns, the time of the loop alone (the tracers' start-up and writing
 * are left out). fn is noinline, not cloned, and its result feeds a checksum through an
 * empty asm barrier, so every call stays a call with one entry and one `ret`. With
 * argv[2] = "framed" it calls fn_framed instead: the same built with a frame pointer, so
 * that it starts with `push %rbp` (an instruction the kernel emulates at a uprobe) as
 * every function of a distribution built with frame pointers does; fn starts with `lea`
 * (single-stepped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline, noclone)) long fn(long x) {
  __asm__ volatile("" : "+r"(x));
  return x * 3 + 1;
}

/* fn with a frame, as a distribution built with -fno-omit-frame-pointer
 * -mno-omit-leaf-frame-pointer compiles it (written out: GCC 12 here drops the frame),
 * with the CFI the compiler would emit (unwinders read it). */
__asm__(
    ".text\n"
    ".globl fn_framed\n"
    ".type fn_framed, @function\n"
    "fn_framed:\n"
    "  .cfi_startproc\n"
    "  push %rbp\n"
    "  .cfi_def_cfa_offset 16\n"
    "  .cfi_offset %rbp, -16\n"
    "  mov %rsp, %rbp\n"
    "  .cfi_def_cfa_register %rbp\n"
    "  lea 1(%rdi,%rdi,2), %rax\n"
    "  pop %rbp\n"
    "  .cfi_def_cfa %rsp, 8\n"
    "  ret\n"
    "  .cfi_endproc\n"
    ".size fn_framed, .-fn_framed\n");
long fn_framed(long x);

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 200000;
  long (*const volatile f)(long) = argc > 2 && strcmp(argv[2], "framed") == 0 ? fn_framed : fn;
  long (*const g)(long) = f;
  long sum = 0;
  const long long start = now_ns();
  for (long i = 0; i < n; ++i) sum += g(i);
  const long long elapsed = now_ns() - start;
  printf("calls=%ld sum=%ld elapsed_ns=%lld\n", n, sum, elapsed);
  return 0;
}

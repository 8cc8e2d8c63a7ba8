// Library-call stubs and their common trampoline (libcalls.cpp patches the PLT slots of
// instrumented modules to point at the stubs). Stub i loads i into r11 and jumps to the
// trampoline, which records entry, calls the real target with the caller's arguments
// (registers and a window of stack arguments), records exit and returns. CFI describes
// every instruction, so exceptions and backtraces unwind through both.
#include "libcall_layout.h"

        .section .note.GNU-stack,"",@progbits

        .text
        .p2align 4
        .globl callprof_libcall_stubs
        .hidden callprof_libcall_stubs
        .type callprof_libcall_stubs, @function
// The stubs never touch the stack: the call site's frame state (CFA = rsp + 8) holds.
callprof_libcall_stubs:
        .cfi_startproc
        .set stub_index, 0
        .rept CALLPROF_LIBCALL_STUBS
        .p2align CALLPROF_LIBCALL_STUB_SHIFT
        movl $stub_index, %r11d
        jmp callprof_libcall_trampoline
        .set stub_index, stub_index + 1
        .endr
        .cfi_endproc
        .size callprof_libcall_stubs, .-callprof_libcall_stubs

// Frame below the saved rbx (rsp is 16-byte aligned there):
//   [rsp, rsp + WINDOW)            copy of the caller's stack arguments for the real call
//   [rsp + WINDOW, + 64)           rdi rsi rdx rcx r8 r9 rax (then rax rdx after the call)
//   [rsp + WINDOW + 64, + 128)     xmm0-xmm7 (then xmm0 xmm1 after the call)
#define WINDOW CALLPROF_LIBCALL_STACK_WINDOW
#define GPR (WINDOW)
#define XMM (WINDOW + 64)
#define FRAME (WINDOW + 64 + 128 + 8)

        .p2align 4
        .globl callprof_libcall_trampoline
        .hidden callprof_libcall_trampoline
        .type callprof_libcall_trampoline, @function
callprof_libcall_trampoline:
        .cfi_startproc
        pushq %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
        movq %rsp, %rbp
        .cfi_def_cfa_register %rbp
        pushq %rbx
        .cfi_offset %rbx, -24
        subq $FRAME, %rsp
        andq $-16, %rsp                     // a caller that broke the ABI alignment
        movl %r11d, %ebx                    // the stub's index, kept across both calls
        movq %rdi, GPR+0(%rsp)
        movq %rsi, GPR+8(%rsp)
        movq %rdx, GPR+16(%rsp)
        movq %rcx, GPR+24(%rsp)
        movq %r8, GPR+32(%rsp)
        movq %r9, GPR+40(%rsp)
        movq %rax, GPR+48(%rsp)             // vector register count of a varargs call
        movaps %xmm0, XMM+0(%rsp)
        movaps %xmm1, XMM+16(%rsp)
        movaps %xmm2, XMM+32(%rsp)
        movaps %xmm3, XMM+48(%rsp)
        movaps %xmm4, XMM+64(%rsp)
        movaps %xmm5, XMM+80(%rsp)
        movaps %xmm6, XMM+96(%rsp)
        movaps %xmm7, XMM+112(%rsp)
        movl %ebx, %edi
        movq 8(%rbp), %rsi                  // return address: the call site
        leaq 8(%rbp), %rdx                  // where it lies: just below the caller's frame
        call callprof_libcall_enter
        // Stack arguments start just above the return address; the real target must find
        // them at the same offsets from its own return address.
        .set copied, 0
        .rept WINDOW / 16
        movups 16+copied(%rbp), %xmm8
        movaps %xmm8, copied(%rsp)
        .set copied, copied + 16
        .endr
        movq GPR+0(%rsp), %rdi
        movq GPR+8(%rsp), %rsi
        movq GPR+16(%rsp), %rdx
        movq GPR+24(%rsp), %rcx
        movq GPR+32(%rsp), %r8
        movq GPR+40(%rsp), %r9
        movq GPR+48(%rsp), %rax
        movaps XMM+0(%rsp), %xmm0
        movaps XMM+16(%rsp), %xmm1
        movaps XMM+32(%rsp), %xmm2
        movaps XMM+48(%rsp), %xmm3
        movaps XMM+64(%rsp), %xmm4
        movaps XMM+80(%rsp), %xmm5
        movaps XMM+96(%rsp), %xmm6
        movaps XMM+112(%rsp), %xmm7
        leaq callprof_libcall_targets(%rip), %r11
        call *(%r11,%rbx,8)
        // Return values: rax/rdx and xmm0/xmm1. The x87 stack (long double) is left alone.
        movq %rax, GPR+0(%rsp)
        movq %rdx, GPR+8(%rsp)
        movaps %xmm0, XMM+0(%rsp)
        movaps %xmm1, XMM+16(%rsp)
        movl %ebx, %edi
        leaq 8(%rbp), %rsi
        call callprof_libcall_exit
        movq GPR+0(%rsp), %rax
        movq GPR+8(%rsp), %rdx
        movaps XMM+0(%rsp), %xmm0
        movaps XMM+16(%rsp), %xmm1
        movq -8(%rbp), %rbx
        leave
        .cfi_def_cfa %rsp, 8
        ret
        .cfi_endproc
        .size callprof_libcall_trampoline, .-callprof_libcall_trampoline

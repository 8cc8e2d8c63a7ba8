// The trampolines of a program patched at attach (patched_calls.cpp; docs/attach.md,
// "Programs built to be attached"). A function's entry nops became `call STUB`, and the
// stub near its module jumps to callprof_patched_entry; the function's return address was
// replaced by callprof_patched_return, which gives it back. Both keep every register the
// function's code may rely on: the arguments (and rax, r10) on entry, the return values
// (rax, rdx, xmm0, xmm1; x87 is never touched) on return.

        .section .note.GNU-stack,"",@progbits
        .text

// Entry: [rsp] = the patched function's address + 5 (its first instruction after the
// call), [rsp + 8] = its own return address (the slot). The stack is aligned here, not
// assumed: GCC calls a function of the same file with whatever alignment that function
// needs, which for one without calls may be none.
        .p2align 4
        .globl callprof_patched_entry
        .hidden callprof_patched_entry
        .type callprof_patched_entry, @function
callprof_patched_entry:
        .cfi_startproc
        pushq %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_offset %rbp, -16
        movq %rsp, %rbp
        .cfi_def_cfa_register %rbp
        pushq %rax
        pushq %rdi
        pushq %rsi
        pushq %rdx
        pushq %rcx
        pushq %r8
        pushq %r9
        pushq %r10
        subq $128, %rsp                  // xmm0-7
        andq $-16, %rsp
        movups %xmm0, 0(%rsp)
        movups %xmm1, 16(%rsp)
        movups %xmm2, 32(%rsp)
        movups %xmm3, 48(%rsp)
        movups %xmm4, 64(%rsp)
        movups %xmm5, 80(%rsp)
        movups %xmm6, 96(%rsp)
        movups %xmm7, 112(%rsp)
        movq 8(%rbp), %rdi               // where the call returns: the site + 5
        leaq 16(%rbp), %rsi              // the function's return-address slot
        call callprof_patched_enter
        movups 0(%rsp), %xmm0
        movups 16(%rsp), %xmm1
        movups 32(%rsp), %xmm2
        movups 48(%rsp), %xmm3
        movups 64(%rsp), %xmm4
        movups 80(%rsp), %xmm5
        movups 96(%rsp), %xmm6
        movups 112(%rsp), %xmm7
        leaq -64(%rbp), %rsp
        popq %r10
        popq %r9
        popq %r8
        popq %rcx
        popq %rdx
        popq %rsi
        popq %rdi
        popq %rax
        popq %rbp
        .cfi_def_cfa %rsp, 8
        ret
        .cfi_endproc
        .size callprof_patched_entry, .-callprof_patched_entry

// Return: a patched function returned here; its slot was rsp - 8 (dead now: rbp is saved
// there). The real return address comes back from callprof_patched_leave in rax and is
// jumped to through r11 (free at a return). The return address is nowhere on the stack:
// an unwinder stops here.
        .p2align 4
        .globl callprof_patched_return
        .hidden callprof_patched_return
        .type callprof_patched_return, @function
        nop                              // a return address's caller lookup (pc - 1) lands here
callprof_patched_return:
        .cfi_startproc
        .cfi_undefined rip
        pushq %rbp
        movq %rsp, %rbp                  // = the slot
        pushq %rax
        pushq %rdx
        subq $32, %rsp
        andq $-16, %rsp
        movups %xmm0, 0(%rsp)
        movups %xmm1, 16(%rsp)
        movq %rbp, %rdi
        call callprof_patched_leave
        movq %rax, %r11
        movups 0(%rsp), %xmm0
        movups 16(%rsp), %xmm1
        leaq -16(%rbp), %rsp
        popq %rdx
        popq %rax
        popq %rbp
        jmp *%r11
        .cfi_endproc
        .size callprof_patched_return, .-callprof_patched_return

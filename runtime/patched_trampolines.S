// The trampolines of a program patched at attach (patched_calls.cpp; docs/attach.md,
// "Programs built to be attached"). A function's entry nops became `call STUB`, and the
// stub near its module jumps to callprof_patched_entry; the function's return address was
// replaced by callprof_patched_return, which gives it back. Both keep every register the
// function's code may rely on: the arguments (and rax, r10) on entry, the return values
// (rax, rdx, xmm0, xmm1; x87 is never touched) on return.

        .section .note.GNU-stack,"",@progbits
        .text

// Entry: [rsp] = the patched function's address + 5 (its first instruction after the
// call), [rsp + 8] = its own return address (the slot). rsp = 0 mod 16 here: the function
// was entered with 8 mod 16 and the call pushed 8.
        .p2align 4
        .globl callprof_patched_entry
        .hidden callprof_patched_entry
        .type callprof_patched_entry, @function
callprof_patched_entry:
        .cfi_startproc
        pushq %rax
        .cfi_adjust_cfa_offset 8
        pushq %rdi
        .cfi_adjust_cfa_offset 8
        pushq %rsi
        .cfi_adjust_cfa_offset 8
        pushq %rdx
        .cfi_adjust_cfa_offset 8
        pushq %rcx
        .cfi_adjust_cfa_offset 8
        pushq %r8
        .cfi_adjust_cfa_offset 8
        pushq %r9
        .cfi_adjust_cfa_offset 8
        pushq %r10
        .cfi_adjust_cfa_offset 8
        subq $128, %rsp                  // xmm0-7 (unaligned moves: code not
                                         // built by a compiler may call with any rsp)
        .cfi_adjust_cfa_offset 128
        movups %xmm0, 0(%rsp)
        movups %xmm1, 16(%rsp)
        movups %xmm2, 32(%rsp)
        movups %xmm3, 48(%rsp)
        movups %xmm4, 64(%rsp)
        movups %xmm5, 80(%rsp)
        movups %xmm6, 96(%rsp)
        movups %xmm7, 112(%rsp)
        movq 192(%rsp), %rdi             // where the call returns: the site + 5
        leaq 200(%rsp), %rsi             // the function's return-address slot
        call callprof_patched_enter
        movups 0(%rsp), %xmm0
        movups 16(%rsp), %xmm1
        movups 32(%rsp), %xmm2
        movups 48(%rsp), %xmm3
        movups 64(%rsp), %xmm4
        movups 80(%rsp), %xmm5
        movups 96(%rsp), %xmm6
        movups 112(%rsp), %xmm7
        addq $128, %rsp
        .cfi_adjust_cfa_offset -128
        popq %r10
        .cfi_adjust_cfa_offset -8
        popq %r9
        .cfi_adjust_cfa_offset -8
        popq %r8
        .cfi_adjust_cfa_offset -8
        popq %rcx
        .cfi_adjust_cfa_offset -8
        popq %rdx
        .cfi_adjust_cfa_offset -8
        popq %rsi
        .cfi_adjust_cfa_offset -8
        popq %rdi
        .cfi_adjust_cfa_offset -8
        popq %rax
        .cfi_adjust_cfa_offset -8
        ret
        .cfi_endproc
        .size callprof_patched_entry, .-callprof_patched_entry

// Return: a patched function returned here; its slot was rsp - 8, and rsp = 0 mod 16 (the
// caller's alignment at its call). The real return address comes back from
// callprof_patched_leave in rax and is jumped to through r11 (free at a return).
// The return address is nowhere on the stack: an unwinder stops here.
        .p2align 4
        .globl callprof_patched_return
        .hidden callprof_patched_return
        .type callprof_patched_return, @function
        nop                              // a return address's caller lookup (pc - 1) lands here
callprof_patched_return:
        .cfi_startproc
        .cfi_undefined rip
        pushq %rax
        .cfi_adjust_cfa_offset 8
        pushq %rdx
        .cfi_adjust_cfa_offset 8
        subq $32, %rsp
        .cfi_adjust_cfa_offset 32
        movups %xmm0, 0(%rsp)
        movups %xmm1, 16(%rsp)
        leaq 40(%rsp), %rdi              // the slot: rsp at the return, less 8
        call callprof_patched_leave
        movq %rax, %r11
        movups 0(%rsp), %xmm0
        movups 16(%rsp), %xmm1
        addq $32, %rsp
        .cfi_adjust_cfa_offset -32
        popq %rdx
        .cfi_adjust_cfa_offset -8
        popq %rax
        .cfi_adjust_cfa_offset -8
        jmp *%r11
        .cfi_endproc
        .size callprof_patched_return, .-callprof_patched_return

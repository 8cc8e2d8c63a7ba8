# The hit-kinds benchmark's functions (bench/probes/hit_kinds.sh): each starts with the
# instruction its name says, which is where the benchmark puts a uprobe; f_lea's ret is
# probed too. They compute rdi + 1.
        .text
        .macro FN name
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        .endm
        FN f_lea
        lea 1(%rdi),%rax
        ret
        .size f_lea,.-f_lea
        FN f_nop
        nop
        lea 1(%rdi),%rax
        ret
        .size f_nop,.-f_nop
        FN f_push
        push %rbx
        lea 1(%rdi),%rax
        pop %rbx
        ret
        .size f_push,.-f_push
        FN f_endbr
        endbr64
        lea 1(%rdi),%rax
        ret
        .size f_endbr,.-f_endbr
        FN f_nopl
        nopl 0x0(%rax)
        lea 1(%rdi),%rax
        ret
        .size f_nopl,.-f_nopl
        FN f_nop5
        .byte 0x0f,0x1f,0x44,0x00,0x00
        lea 1(%rdi),%rax
        ret
        .size f_nop5,.-f_nop5
        FN f_jmp
        jmp 1f
        int3
1:      lea 1(%rdi),%rax
        ret
        .size f_jmp,.-f_jmp
        FN f_movrr
        mov %rdi,%rdi
        lea 1(%rdi),%rax
        ret
        .size f_movrr,.-f_movrr
        .section .note.GNU-stack,"",@progbits

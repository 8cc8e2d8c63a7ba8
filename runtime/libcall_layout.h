// Sizes shared by the library-call stubs (libcall_trampoline.S) and libcalls.cpp: plain
// #defines, because the assembler reads this file too.
#pragma once

// Stubs in the table, one per distinct imported symbol and target; each is 1 << SHIFT bytes.
#define CALLPROF_LIBCALL_STUBS 8192
#define CALLPROF_LIBCALL_STUB_SHIFT 4
// Bytes of the caller's stack arguments passed on to the real target (16 eightbytes).
#define CALLPROF_LIBCALL_STACK_WINDOW 128

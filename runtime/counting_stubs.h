// Counting stubs (issue 28; docs/modes.md, "Removing hooks"): the enter hook call of a
// function folded and removed for the whole process becomes a call of a stub that adds one
// to the calling thread's count of that function and returns, so its calls stay counted
// (per function, not per path) for about what a call and an add cost.
//
// A stub is 22 bytes of position-dependent code, written once into a mapping of its own
// within a call's reach (2 GiB) of the module whose call sites will call it:
//   mov %fs:TLS, %r11        the thread's state (an initial-exec thread-local pointer)
//   test %r11, %r11; je 1f   a thread with no state yet counts nothing
//   incq COUNTER(%r11)       its counter for this function
//   1: ret
// It uses only %r11 and the flags and touches no stack: any call of the hook may clobber
// them (the hook is an ordinary function to the compiler), and at a function's entry (a
// patched entry's call) neither holds anything (%rax may: a variadic function's count of
// vector registers; %r11 is no argument register, the flags are not kept across calls).
#pragma once

#include <stdint.h>

namespace callprof::rt {

inline constexpr uint32_t kCountingStubBytes = 32;

// The stub counting at `counter_offset` from the pointer held `tls_offset` bytes from the
// thread pointer.
void encode_counting_stub(int32_t tls_offset, int32_t counter_offset, uint8_t out[kCountingStubBytes]);

// Maps `count` stubs, the i-th counting at counter_offset + 8 * i, read + execute, where a
// call from any address in [lo, hi) reaches each of them (near_code.h); their first
// address, or 0 when no free place was found within reach or the system refused (the hook
// calls then become nops, uncounted). Not for the hot path: a few system calls.
uint64_t map_counting_stubs(uint64_t lo, uint64_t hi, int32_t tls_offset, int32_t counter_offset, uint32_t count);

}  // namespace callprof::rt

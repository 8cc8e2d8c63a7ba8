// libcallprof-alloc.so: charging allocations and frees to the calling thread's current
// call path (libcallprof-rt's callprof_rt_note_*), counting each `new`/`delete` once.
//
// libstdc++'s operator new calls malloc (aligned new: aligned_alloc), which is ours too.
// Our operator new therefore raises a thread-local flag before forwarding; the first
// successful allocation under it takes the flag down and counts nothing, and operator new
// counts itself, with the size the program asked for. Consuming the flag (rather than
// lowering it on return) also bounds the damage when operator new throws bad_alloc
// through our frame: the exception object's allocation consumes it. Frees and operator
// delete work the same way with a flag of their own (a new_handler may free memory).
#pragma once

#include <stdint.h>

extern "C" {
void callprof_rt_note_alloc(uint64_t bytes);
void callprof_rt_note_free(void);
}

namespace callprof::alloc {

extern __thread uint8_t t_in_new __attribute__((tls_model("initial-exec")));
extern __thread uint8_t t_in_delete __attribute__((tls_model("initial-exec")));

// A successful allocation by the malloc family.
inline void charge_alloc(uint64_t bytes) {
  if (__builtin_expect(t_in_new != 0, 0)) {
    t_in_new = 0;  // part of an operator new, which counts itself
    return;
  }
  callprof_rt_note_alloc(bytes);
}

// free of a non-null pointer, or realloc moving a block.
inline void charge_free() {
  if (__builtin_expect(t_in_delete != 0, 0)) {
    t_in_delete = 0;
    return;
  }
  callprof_rt_note_free();
}

}  // namespace callprof::alloc

#define CALLPROF_ALLOC_EXPORT __attribute__((visibility("default")))

// The runtime's stand-ins for the program's calls that end an image or a thread, or start
// one (exec*, _exit, pthread_create/exit), or leave frames without their exit hooks
// (setjmp/longjmp, a C++ catch): interposed by name when the runtime is
// preloaded (record); reached through the program's GOT entries when it is attached
// (attach.cpp swaps them with the hooks'), since a library loaded with dlopen interposes
// nothing. By the name the GOT entry is relocated against; 0 when there is none.
#pragma once

#include <stdint.h>

// A hidden alias takes its target's attributes (noreturn, nonnull, nothrow): GCC warns
// when it has fewer; Clang has no such attribute, nor the warning.
#if defined(__clang__)
#define CALLPROF_SAME_ATTRIBUTES(target)
#else
#define CALLPROF_SAME_ATTRIBUTES(target) __attribute__((copy(target)))
#endif

namespace callprof::rt {

// A stand-in by name, in a table of this library's functions.
struct OwnFunction {
  const char* name;
  const void* fn;
};
template <unsigned N>
uint64_t own_function(const OwnFunction (&table)[N], const char* name) {
  for (const OwnFunction& e : table)
    if (__builtin_strcmp(e.name, name) == 0) return reinterpret_cast<uint64_t>(e.fn);
  return 0;
}

uint64_t exec_replacement(const char* name);       // exec_intercept.cpp
uint64_t intercept_replacement(const char* name);  // intercept.cpp
uint64_t setjmp_replacement(const char* name);     // setjmp_intercept.cpp
uint64_t patched_replacement(const char* name);    // patched_calls.cpp: the unwinders
inline uint64_t replacement_for(const char* name) {
  if (const uint64_t exec = exec_replacement(name)) return exec;
  if (const uint64_t other = intercept_replacement(name)) return other;
  if (const uint64_t unwinder = patched_replacement(name)) return unwinder;
  return setjmp_replacement(name);
}

}  // namespace callprof::rt

// The runtime's stand-ins for the program's calls that end an image or a thread, or start
// one (exec*, _exit, pthread_create/exit): interposed by name when the runtime is
// preloaded (record); reached through the program's GOT entries when it is attached
// (attach.cpp swaps them with the hooks'), since a library loaded with dlopen interposes
// nothing. By the name the GOT entry is relocated against; 0 when there is none.
#pragma once

#include <stdint.h>

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
inline uint64_t replacement_for(const char* name) {
  const uint64_t exec = exec_replacement(name);
  return exec ? exec : intercept_replacement(name);
}

}  // namespace callprof::rt

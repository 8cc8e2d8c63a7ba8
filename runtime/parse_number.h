// Unsigned numbers from text, for the runtime's start-up (environment, function plan),
// without libc's strtoull: the program may define functions of libc's names.
#pragma once

#include <stdint.h>

namespace callprof::rt {

// Skips spaces, reads digits of `base` (10 or 16); *end is where reading stopped.
// A value past 2^64 - 1 reads as UINT64_MAX.
inline uint64_t parse_u64(const char* s, unsigned base, const char** end) {
  while (*s == ' ' || *s == '\t') ++s;
  uint64_t v = 0;
  bool overflow = false;
  for (;; ++s) {
    unsigned d;
    if (*s >= '0' && *s <= '9')
      d = unsigned(*s - '0');
    else if (base == 16 && *s >= 'a' && *s <= 'f')
      d = unsigned(*s - 'a' + 10);
    else if (base == 16 && *s >= 'A' && *s <= 'F')
      d = unsigned(*s - 'A' + 10);
    else
      break;
    if (v > (UINT64_MAX - d) / base) overflow = true;
    v = v * base + d;
  }
  if (end) *end = s;
  return overflow ? UINT64_MAX : v;
}

}  // namespace callprof::rt

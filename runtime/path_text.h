// A file path built without stdio or allocation (the runtime writes its files from hooks,
// signal handlers and exit paths).
#pragma once

#include <stdint.h>

namespace callprof::rt {

struct Path {
  char text[640];
  uint32_t size = 0;
  Path& add(const char* s) {
    while (*s && size + 1 < sizeof text) text[size++] = *s++;
    text[size] = 0;
    return *this;
  }
  Path& add(uint32_t v) {
    char digits[10];
    int n = 0;
    do digits[n++] = char('0' + v % 10), v /= 10;
    while (v);
    while (n > 0 && size + 1 < sizeof text) text[size++] = digits[--n];
    text[size] = 0;
    return *this;
  }
};

}  // namespace callprof::rt

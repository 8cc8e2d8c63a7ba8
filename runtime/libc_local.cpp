// The memory and string functions the runtime uses, defined here with hidden visibility so
// that every call the compiler emits for them binds inside libcallprof-rt.so: a program
// that defines (and instruments) its own memcpy or strlen must not see the runtime's calls,
// least of all from inside a hook. Built with -fno-builtin, so that these loops are not
// turned back into calls of the functions they define.
#include <stddef.h>
#include <stdint.h>

#define CALLPROF_LOCAL extern "C" __attribute__((visibility("hidden")))

CALLPROF_LOCAL void* memcpy(void* to, const void* from, size_t n) {
  void* d = to;
  asm volatile("rep movsb" : "+D"(d), "+S"(from), "+c"(n) : : "memory");
  return to;
}

CALLPROF_LOCAL void* memmove(void* to, const void* from, size_t n) {
  unsigned char* d = static_cast<unsigned char*>(to);
  const unsigned char* s = static_cast<const unsigned char*>(from);
  if (d <= s || d >= s + n) return memcpy(to, from, n);  // forward copy is safe
  while (n-- > 0) d[n] = s[n];
  return to;
}

CALLPROF_LOCAL void* memset(void* to, int c, size_t n) {
  void* d = to;
  asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
  return to;
}

CALLPROF_LOCAL int memcmp(const void* a, const void* b, size_t n) {
  const unsigned char *x = static_cast<const unsigned char*>(a), *y = static_cast<const unsigned char*>(b);
  for (size_t i = 0; i < n; ++i)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

CALLPROF_LOCAL void* memchr(const void* p, int c, size_t n) {
  const unsigned char* s = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i)
    if (s[i] == static_cast<unsigned char>(c)) return const_cast<unsigned char*>(s + i);
  return nullptr;
}

CALLPROF_LOCAL size_t strlen(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

CALLPROF_LOCAL int strncmp(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y ? -1 : 1;
    if (x == 0) return 0;
  }
  return 0;
}

CALLPROF_LOCAL int strcmp(const char* a, const char* b) { return strncmp(a, b, SIZE_MAX); }

CALLPROF_LOCAL char* strstr(const char* haystack, const char* needle) {
  const size_t n = strlen(needle);
  for (const char* p = haystack;; ++p) {
    if (strncmp(p, needle, n) == 0) return const_cast<char*>(p);
    if (*p == 0) return nullptr;
  }
}
